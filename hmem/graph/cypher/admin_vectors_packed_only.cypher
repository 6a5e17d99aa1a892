// params: limit
// Facts whose vector is stored only as float32 bytes (written where hmem's plugin was,
// write_apply.cypher, which labels them PackedVector), found on a server without the
// plugin: GraphStore.unpack_vectors gives them the float array that plain Cypher and
// the vector index read. The label makes this a lookup of those facts alone, not a scan
// of every fact (it runs once per process on such a server). Across users by design (a
// server-wide repair); each row names its user.
MATCH (f:PackedVector:Fact)
WHERE f.embedding_f32le IS NOT NULL
RETURN f.user_id AS user_id, f.id AS id, f.embedding_f32le AS packed
LIMIT $limit
