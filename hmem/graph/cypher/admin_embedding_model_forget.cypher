// params: key
MATCH (m:EmbeddingModel {key: $key})
DELETE m
