// params: key, name, dim, at
// The first embedder to use a store records itself; later ones read what is recorded.
MERGE (m:EmbeddingModel {key: $key})
  ON CREATE SET m.name = $name, m.dim = $dim, m.recorded_at = $at
RETURN m.name AS name, m.dim AS dim, m.target_name AS target_name, m.target_dim AS target_dim
