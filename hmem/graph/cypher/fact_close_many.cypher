// params: user_id, rows
// Close open facts in both clocks; never deletes. An earlier explicit end is kept.
UNWIND $rows AS x
MATCH (f:Fact {user_id: $user_id, id: x.id}) USING INDEX f:Fact(user_id, id)
WHERE f.known_to IS NULL
SET f.valid_to_before_close = f.valid_to,
    f.valid_to = CASE WHEN f.valid_to IS NOT NULL AND f.valid_to < x.valid_to
                      THEN f.valid_to ELSE x.valid_to END,
    f.known_to = x.known_to,
    f.close_reason = x.reason
RETURN count(f) AS closed
