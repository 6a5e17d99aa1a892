// params: model, limit
// Facts (of every user) whose vector is not yet from `model`: what `hmem reembed` has
// left to do. Each batch it writes marks its facts, so an interrupted run resumes here.
MATCH (f:Fact)
WHERE f.embedding_model IS NULL OR f.embedding_model <> $model
RETURN f.user_id AS user_id, f.id AS id, f.text AS text
LIMIT $limit
