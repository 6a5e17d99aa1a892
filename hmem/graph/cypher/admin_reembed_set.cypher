// params: model, rows
// Each row names its own user: the match stays inside that user's facts.
UNWIND $rows AS x
MATCH (f:Fact {user_id: x.user_id, id: x.id})
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
SET f.embedding_f32le = x.packed, f.embedding_model = $model
RETURN count(f) AS embedded
