// params: user_id
// The user's facts start going into the vector index: from this commit on, every write
// labels its new facts IndexedFact (the guard reads this under the user's lock), and
// user_vector_index_fill.cypher labels the ones written before. Searches use the index
// for this user only once user_vector_index_ready.cypher has run.
MATCH (u:User {user_id: $user_id})
SET u.vector_index = coalesce(u.vector_index, 'filling')
RETURN u.vector_index AS vector_index
