// params: user_id, rows
// Close open facts in both clocks; never deletes. An earlier explicit end is kept.
// Only a close learned at or after the fact's last change (its belief history is in
// belief time order); the caller compares the count.
UNWIND $rows AS x
MATCH (f:Fact {user_id: $user_id, id: x.id}) USING INDEX f:Fact(user_id, id)
WHERE f.known_to IS NULL AND last(f.belief_at) <= x.known_to
//include close
RETURN count(f) AS closed
