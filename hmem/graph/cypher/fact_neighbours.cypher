// params: user_id, vector, k
// Read before writing: this user's open facts most similar to the new messages.
// An exact scan over one user's facts: the 5.26 vector index cannot filter by user.
MATCH (f:Fact {user_id: $user_id})
WHERE f.known_to IS NULL AND f.embedding IS NOT NULL
WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
ORDER BY score DESC
LIMIT $k
RETURN f.id AS id, f.text AS text, f.valid_from AS valid_from, score, f.embedding AS embedding
