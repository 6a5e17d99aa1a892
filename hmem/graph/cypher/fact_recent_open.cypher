// params: user_id, k
// Neighbours when no embedder is configured: the most recently learned open facts.
MATCH (f:Fact {user_id: $user_id})
WHERE f.known_to IS NULL
RETURN f.id AS id, f.text AS text, f.valid_from AS valid_from, f.known_from AS known_from,
       0.0 AS score, null AS embedding
ORDER BY f.known_from DESC
LIMIT $k
