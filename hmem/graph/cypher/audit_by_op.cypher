// params: user_id, ops, limit
// The user's latest audit events of the given operations: an import's watermark
// (op import_sync) and the facts erased by hand (op erase_fact), which a sync must not
// bring back.
MATCH (a:AuditEvent {user_id: $user_id})
WHERE a.op IN $ops
RETURN a.at AS at, a.op AS op, a.fact_ids AS fact_ids, a.detail AS detail
ORDER BY a.at DESC, a.id
LIMIT $limit
