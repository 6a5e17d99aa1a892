// params: user_id, batch
// Auto-commit only (CALL ... IN TRANSACTIONS): the user's facts written before
// user_vector_index_begin.cypher join the vector index, $batch per transaction (each
// commit updates the index). Run again after a failure: it takes what is left.
MATCH (f:Fact {user_id: $user_id})
WHERE NOT f:IndexedFact
CALL (f) {
  SET f:IndexedFact
} IN TRANSACTIONS OF $batch ROWS
RETURN count(f) AS labelled
