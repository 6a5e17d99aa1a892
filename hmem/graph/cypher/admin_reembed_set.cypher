// params: model, rows
// Each row names its own user: the match stays inside that user's facts. The new
// model's vector is stored once where it is read (the fragment _vector_once.cypher, as
// fact_set_embedding.cypher stores it); the old model's other copy is removed.
UNWIND $rows AS x
MATCH (f:Fact {user_id: x.user_id, id: x.id}) USING INDEX f:Fact(user_id, id)
//include vector_once
SET f.embedding_model = $model
RETURN count(f) AS embedded
