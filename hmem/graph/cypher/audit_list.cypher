// params: user_id, limit
MATCH (a:AuditEvent {user_id: $user_id})
RETURN a.id AS id, a.at AS at, a.op AS op, a.fact_ids AS fact_ids, a.detail AS detail
ORDER BY a.at DESC, a.id
LIMIT $limit
