// params: model, rows
// Each row names its own user: the match stays inside that user's facts. With hmem's
// plugin (the //native text) only the float32 bytes are sent and hmem.vector.set stores
// the same float array setNodeVectorProperty stores from a list (fact_set_embedding).
UNWIND $rows AS x
MATCH (f:Fact {user_id: x.user_id, id: x.id})
//plain begin
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
//plain end
//native CALL hmem.vector.set(f, 'embedding', x.packed)
SET f.embedding_f32le = x.packed, f.embedding_model = $model
RETURN count(f) AS embedded
