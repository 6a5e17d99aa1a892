// params: user_id, cutoff, now, audit_id, detail
// Episodic facts unused since $cutoff are closed as over (reason 'ended', never erased):
// a window with no end, or one ending later, ends now (an event not yet begun: at its
// start, never true), and the fact stays believed with that end (docs/time.md), so an
// as_of_event view still reaches it, and restore() reopens one. The audit records ids,
// not text.
MATCH (f:Fact {user_id: $user_id})
WHERE f.category = 'episodic' AND f.known_to IS NULL
  AND coalesce(f.last_used_at, f.known_from) < $cutoff
  AND f.known_from <= $now AND last(f.belief_at) <= $now
SET f.valid_to_before_close = f.valid_to,
    f.valid_to = CASE WHEN f.valid_to IS NOT NULL AND f.valid_to < $now THEN f.valid_to
                      WHEN f.valid_from > $now THEN f.valid_from ELSE $now END,
    f.known_to = $now,
    f.close_reason = 'ended',
    f.expired_at = $now
SET f.belief_at = f.belief_at + [$now],
    f.belief_to = f.belief_to + [f.valid_to],
    f.belief_why = f.belief_why + ['ended']
WITH collect(f.id) AS ids
CALL (ids) {
  WITH ids WHERE size(ids) > 0
  CREATE (a:AuditEvent {user_id: $user_id, id: $audit_id, at: $now, op: 'expire',
                        fact_ids: ids, detail: $detail})
}
RETURN ids
