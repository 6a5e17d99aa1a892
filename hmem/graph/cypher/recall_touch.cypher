// params: user_id, ids, at
// Recall marks what it used; episodic expiry counts from the last use. Never moves back.
UNWIND $ids AS fid
MATCH (f:Fact {user_id: $user_id, id: fid}) USING INDEX f:Fact(user_id, id)
WHERE f.last_used_at IS NULL OR f.last_used_at < $at
SET f.last_used_at = $at
RETURN count(f) AS touched
