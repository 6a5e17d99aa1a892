// params: user_id, vector, k
// Read before writing: this user's open facts most similar to the new messages.
// An exact scan over one user's facts: the 5.26 vector index cannot filter by user.
// A stored vector cosine cannot use (all zeros, NaN, Infinity, a length that overflows:
// written before hmem.models.check_vector guarded every entry) is skipped, not fatal:
// vector.similarity.cosine would fail the whole statement, and with it every session of
// the user. The test is Neo4j's own: a finite, non-zero sum of squares in doubles.
// With hmem's plugin (the //native text) the same top $k comes from one call of
// hmem.vector.topk (same scores; it skips such vectors too).
MATCH (f:Fact {user_id: $user_id})
WHERE f.known_to IS NULL AND (f.embedding_f32le IS NOT NULL OR f.embedding IS NOT NULL)
//native WITH collect(f) AS fs
//native CALL hmem.vector.topk(fs, ['embedding_f32le', 'embedding'], $vector, $k)
//native   YIELD node AS f, score
//plain begin
WITH f, reduce(sq = 0.0, x IN f.embedding | sq + x * x) AS sq
WHERE sq > 0.0 AND sq < 1.0 / 0.0
WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
ORDER BY score DESC
LIMIT $k
//plain end
// The vector comes back as its float32 bytes when stored so (one value to decode, not 384).
RETURN f.id AS id, f.text AS text, f.valid_from AS valid_from, f.known_from AS known_from, score,
       f.embedding_f32le AS packed,
       CASE WHEN f.embedding_f32le IS NULL THEN f.embedding END AS embedding
