// params: limit
// Facts (of every user) with no vector at all: written while no embedding model was
// configured (an offline first `make demo`, a `remember` without HMEM_EMBED_*). Once a
// model is, Memory.embed_missing gives them one (fact_set_embedding.cypher, per user),
// so dense search finds them; until then only words and names do. Across users by design
// (a server-wide repair at `hmem serve --demo` / `--init-schema`); each row names its user.
MATCH (f:Fact)
WHERE f.embedding IS NULL AND f.embedding_f32le IS NULL
RETURN f.user_id AS user_id, f.id AS id, f.text AS text
LIMIT $limit
