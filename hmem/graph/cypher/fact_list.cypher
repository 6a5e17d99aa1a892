// params: user_id, mode, now, as_of, as_of_event, skip, limit
// mode: 'current' (believed now and not ended), 'all', or 'asof' (the as_of / as_of_event
// filters below select the past; either may be null).
MATCH (f:Fact {user_id: $user_id})
WHERE ($mode <> 'current' OR (f.known_to IS NULL AND (f.valid_to IS NULL OR f.valid_to > $now)))
  AND ($mode <> 'asof' OR $as_of IS NULL
       OR (f.known_from <= $as_of AND (f.known_to IS NULL OR f.known_to > $as_of)))
  AND ($mode <> 'asof' OR $as_of_event IS NULL
       OR (f.valid_from <= $as_of_event AND (f.valid_to IS NULL OR f.valid_to > $as_of_event)))
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
WITH f, collect(e.name) AS entities
ORDER BY f.valid_from, f.known_from, f.id
SKIP $skip LIMIT $limit
RETURN f {.id, .user_id, .text, .category, .importance, .hash, .valid_from, .valid_to, .known_from, .known_to, .ingested_at, .last_used_at, .corroborations, .source, .speaker, .close_reason, .valid_precision, .valid_to_precision} AS fact, entities
