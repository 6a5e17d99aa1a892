// params: user_id
// How many facts (with a vector) this user has: picks exact scan or index per user.
MATCH (f:Fact {user_id: $user_id})
WHERE f.embedding IS NOT NULL
RETURN count(f) AS facts
