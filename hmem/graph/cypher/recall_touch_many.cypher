// params: user_id, touches
// Recall marks what it used, batched (hmem.recall.touches): each touch is {id, at}, the
// latest time that fact was used. Episodic expiry counts from the last use. Never moves back.
UNWIND $touches AS t
MATCH (f:Fact {user_id: $user_id, id: t.id}) USING INDEX f:Fact(user_id, id)
WHERE f.last_used_at IS NULL OR f.last_used_at < t.at
SET f.last_used_at = t.at
RETURN count(f) AS touched
