// params: user_id, ids
// The facts a write wants to supersede or relate to: only this user's can be found.
MATCH (f:Fact {user_id: $user_id}) USING INDEX f:Fact(user_id, id)
WHERE f.id IN $ids
RETURN f.id AS id, f.valid_from AS valid_from, f.valid_to AS valid_to,
       f.known_from AS known_from, f.known_to AS known_to
