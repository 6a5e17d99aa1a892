// params: user_id, count_cap
// Whether the user's facts go into the vector index (the root's vector_index: null,
// 'filling' or 'ready') and, until they all are, how many facts the user has (up to
// $count_cap), as write_apply.cypher reads them for a write. For imports, in their
// transaction after the guard (which holds the user's lock).
MATCH (u:User {user_id: $user_id})
WITH u.vector_index AS vector_index
//include facts_until_indexed
RETURN vector_index, facts
