// params: user_id
// Benchmark only (hmem_bench.latency): how many facts with a vector a bench user has
// stored, in the index or not (a load interrupted earlier goes on from there).
MATCH (f:Fact {user_id: $user_id})
WHERE f.embedding_f32le IS NOT NULL OR f.embedding IS NOT NULL
RETURN count(f) AS facts
