// params: index
// Whether the vector index filters by user inside a search: Neo4j 2026.02+ made it
// with user_id as a filter property (schema_fact_vector.cypher's Cypher 25 text).
SHOW INDEXES YIELD name, state, properties
WHERE name = $index
RETURN state = 'ONLINE' AND 'user_id' IN properties AS filtered
