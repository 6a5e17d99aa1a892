// params: user_id, cutoff, now, audit_id, detail
// Episodic facts unused since $cutoff are withdrawn from belief (a retraction), never
// erased: their world window is kept, so a view as of an earlier belief time still
// reaches them, and restore() reopens one (docs/time.md). The audit records ids, not text.
MATCH (f:Fact {user_id: $user_id})
WHERE f.category = 'episodic' AND f.known_to IS NULL
  AND coalesce(f.last_used_at, f.known_from) < $cutoff
  AND f.known_from <= $now AND last(f.belief_at) <= $now
SET f.valid_to_before_close = f.valid_to,
    f.known_to = $now,
    f.close_reason = 'retraction',
    f.expired_at = $now
SET f.belief_at = f.belief_at + [$now],
    f.belief_to = f.belief_to + [coalesce(f.valid_to, datetime('9999-12-31T00:00:00Z'))],
    f.belief_why = f.belief_why + ['retraction']
WITH collect(f.id) AS ids
CALL (ids) {
  WITH ids WHERE size(ids) > 0
  CREATE (a:AuditEvent {user_id: $user_id, id: $audit_id, at: $now, op: 'expire',
                        fact_ids: ids, detail: $detail})
}
RETURN ids
