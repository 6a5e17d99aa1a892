// params: key
// The embedding model the store's vectors come from (one record per database), and the
// model `hmem reembed` is moving it to while a move is unfinished.
MATCH (m:EmbeddingModel {key: $key})
RETURN m.name AS name, m.dim AS dim, m.target_name AS target_name, m.target_dim AS target_dim
