// params: user_id, rows
// setNodeVectorProperty stores float32: half the bytes of a plain SET of a float list.
UNWIND $rows AS x
MATCH (f:Fact {user_id: $user_id, id: x.id})
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
RETURN count(f) AS embedded
