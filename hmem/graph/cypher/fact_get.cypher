// params: user_id, fact_id
MATCH (f:Fact {user_id: $user_id, id: $fact_id}) USING INDEX f:Fact(user_id, id)
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
RETURN f {.id, .user_id, .text, .category, .importance, .hash, .valid_from, .valid_to, .known_from, .known_to, .ingested_at, .last_used_at, .corroborations, .source, .speaker, .close_reason, .valid_precision, .valid_to_precision} AS fact, collect(e.name) AS entities
