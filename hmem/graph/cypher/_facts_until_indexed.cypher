// Fragment (//include facts_until_indexed): after `vector_index` (the user's root's:
// null, 'filling' or 'ready'), `facts`: how many facts the user has, up to $count_cap
// (one past vector_index_min_facts), while they are not all in the vector index; 0 once
// it is 'ready' (the index holds them, nothing to count). Included by write_apply.cypher
// and user_vector_index_state.cypher.
CALL (vector_index) {
  WITH 1 AS go WHERE vector_index IS NULL OR vector_index <> 'ready'
  MATCH (f:Fact {user_id: $user_id})
  WITH f LIMIT $count_cap
  RETURN count(f) AS facts
}
