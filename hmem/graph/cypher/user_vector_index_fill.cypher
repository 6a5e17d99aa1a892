// params: user_id, batch
// Auto-commit only (CALL ... IN TRANSACTIONS): the user's facts written before
// user_vector_index_begin.cypher join the vector index, $batch per transaction (each
// commit updates the index). Run again after a failure: it takes what is left.
// The index covers the float array `embedding`. With hmem's plugin (the //native text)
// a fact outside the index kept its vector only as float32 bytes (write_apply.cypher):
// hmem.vector.set makes the float array from them. Without the plugin the facts have
// the float array already (GraphStore.unpack_vectors gives it to any that do not).
MATCH (f:Fact {user_id: $user_id})
WHERE NOT f:IndexedFact
CALL (f) {
  SET f:IndexedFact
//native   REMOVE f:PackedVector
//native   WITH f WHERE f.embedding_f32le IS NOT NULL
//native   CALL hmem.vector.set(f, 'embedding', f.embedding_f32le)
} IN TRANSACTIONS OF $batch ROWS
RETURN count(f) AS labelled
