// params: user_id, rows
// setNodeVectorProperty stores float32: half the bytes of a plain SET of a float list.
// x.packed is the same vector as float32 little-endian bytes, which the exact scan of
// hmem's procedure reads (hmem.localdb.plugin): Neo4j keeps byte arrays as they are, and
// reading them is several times cheaper than unpacking a stored float list. With hmem's
// plugin (the //native text) only the bytes are sent and hmem.vector.set stores the same
// float array from them (as write_apply.cypher does).
UNWIND $rows AS x
MATCH (f:Fact {user_id: $user_id, id: x.id})
//plain begin
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
//plain end
//native CALL hmem.vector.set(f, 'embedding', x.packed)
SET f.embedding_f32le = x.packed
RETURN count(f) AS embedded
