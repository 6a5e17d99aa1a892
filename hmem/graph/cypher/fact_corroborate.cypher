// params: user_id, ids
UNWIND $ids AS fid
MATCH (f:Fact {user_id: $user_id, id: fid}) USING INDEX f:Fact(user_id, id)
SET f.corroborations = f.corroborations + 1
RETURN count(f) AS corroborated
