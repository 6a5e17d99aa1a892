// params: user_id, cutoff, now, audit_id, detail
// Episodic facts unused since $cutoff are closed in belief time, never erased: their
// world window is kept, so as_of / as_of_event queries still reach them, and
// restore() reopens one. The audit records ids, not text.
MATCH (f:Fact {user_id: $user_id})
WHERE f.category = 'episodic' AND f.known_to IS NULL
  AND coalesce(f.last_used_at, f.known_from) < $cutoff
  AND f.known_from <= $now
SET f.valid_to_before_close = f.valid_to,
    f.known_to = $now,
    f.close_reason = 'retraction',
    f.expired_at = $now
WITH collect(f.id) AS ids
CALL (ids) {
  WITH ids WHERE size(ids) > 0
  CREATE (a:AuditEvent {user_id: $user_id, id: $audit_id, at: $now, op: 'expire',
                        fact_ids: ids, detail: $detail})
}
RETURN ids
