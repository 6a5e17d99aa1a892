// params: min_facts
// The users with more than $min_facts facts whose facts are not all in the vector index
// yet (a store written before the index covered only big users, or a fill that stopped):
// Memory.init_schema fills it for them.
MATCH (u:User)
WHERE u.vector_index IS NULL OR u.vector_index <> 'ready'
WITH u, COUNT { MATCH (f:Fact {user_id: u.user_id}) } AS facts
WHERE facts > $min_facts
RETURN u.user_id AS user_id, facts
ORDER BY facts DESC, user_id
