// params: user_id, id, at, op, fact_ids, detail
// The audit names operations and ids, never memory text.
CREATE (a:AuditEvent {user_id: $user_id, id: $id, at: $at, op: $op,
                      fact_ids: $fact_ids, detail: $detail})
RETURN a.id AS id
