// params: user_id, rows
// setNodeVectorProperty stores float32: half the bytes of a plain SET of a float list.
// x.packed is the same vector as float32 little-endian bytes, which the exact scan of
// hmem's procedure reads (hmem.localdb.plugin): Neo4j keeps byte arrays as they are, and
// reading them is several times cheaper than unpacking a stored float list.
UNWIND $rows AS x
MATCH (f:Fact {user_id: $user_id, id: x.id})
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
SET f.embedding_f32le = x.packed
RETURN count(f) AS embedded
