// params: prefix
// graphiti's driver runs everything in explicit transactions (no IN TRANSACTIONS):
// delete the benchmark's own groups in bounded batches instead.
MATCH (n) WHERE n.group_id STARTS WITH $prefix
WITH n LIMIT 5000
DETACH DELETE n
RETURN count(*) AS deleted
