// params: user_id
// Every fact of the user is in the vector index (after user_vector_index_fill.cypher):
// searches may use it for this user. A user erased meanwhile has no root: no row.
MATCH (u:User {user_id: $user_id})
WHERE u.vector_index = 'filling'
  AND NOT EXISTS { MATCH (f:Fact {user_id: $user_id}) WHERE NOT f:IndexedFact }
SET u.vector_index = 'ready'
RETURN u.vector_index AS vector_index
