// params: model, rows
// Each row names its own user: the match stays inside that user's facts. The vector is
// stored once where it is read, as fact_set_embedding.cypher stores it: with hmem's
// plugin (the //native text) as float32 bytes, plus the float array for a fact in the
// vector index; without it as a float list. The old model's other copy is removed.
UNWIND $rows AS x
MATCH (f:Fact {user_id: x.user_id, id: x.id})
//plain begin
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
REMOVE f.embedding_f32le, f:PackedVector
//plain end
//native SET f.embedding_f32le = x.packed
//native REMOVE f.embedding
//native FOREACH (_ IN CASE WHEN f:IndexedFact THEN [] ELSE [1] END | SET f:PackedVector)
//native WITH f, x
//native CALL (f, x) {
//native   WITH f, x WHERE f:IndexedFact
//native   CALL hmem.vector.set(f, 'embedding', x.packed)
//native }
SET f.embedding_model = $model
RETURN count(f) AS embedded
