// params: rows
// The float array for facts that kept their vector only as bytes (see
// admin_vectors_packed_only.cypher), stored as float32 by setNodeVectorProperty. Each
// row names its own user: the match stays inside that user's facts.
UNWIND $rows AS x
MATCH (f:Fact {user_id: x.user_id, id: x.id}) USING INDEX f:Fact(user_id, id)
CALL (f, x) {
  WITH f, x WHERE f.embedding IS NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
}
REMOVE f:PackedVector
RETURN count(f) AS unpacked
