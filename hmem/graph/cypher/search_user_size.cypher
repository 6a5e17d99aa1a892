// params: user_id
// How many facts (with a vector) of this user the vector index holds: 0 until all of
// them are in it (the user's root says 'ready'). Picks exact scan or index per user.
OPTIONAL MATCH (u:User {user_id: $user_id})
WITH coalesce(u.vector_index = 'ready', false) AS indexed
OPTIONAL MATCH (f:Fact {user_id: $user_id})
WHERE indexed AND f.embedding IS NOT NULL
RETURN count(f) AS facts
