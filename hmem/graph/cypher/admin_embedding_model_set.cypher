// params: key, name, dim, target_name, target_dim, at
MERGE (m:EmbeddingModel {key: $key})
SET m.name = $name, m.dim = $dim, m.target_name = $target_name, m.target_dim = $target_dim,
    m.recorded_at = $at
RETURN m.name AS name, m.dim AS dim, m.target_name AS target_name, m.target_dim AS target_dim
