// params:
// See schema_fact_valid_from_drop.cypher.
DROP INDEX fact_known_from IF EXISTS
