// params: model
MATCH (f:Fact)
WHERE f.embedding_model IS NULL OR f.embedding_model <> $model
RETURN count(f) AS pending
