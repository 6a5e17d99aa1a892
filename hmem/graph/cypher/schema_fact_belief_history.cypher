// params: batch
// Migration, run at every schema setup (hmem.graph.schema.apply_schema, until it
// returns 0): facts stored before the belief history (docs/time.md) get it from their
// state fields, $batch at a time. Idempotent: a fact that has one is not touched.
MATCH (f:Fact) WHERE f.belief_at IS NULL
WITH f LIMIT $batch
//include belief_from_state
RETURN count(f) AS migrated
