// params:
// fact_text_user made with another analyzer than the one schema_fact_fulltext.cypher
// names (stores before it had the standard analyzer): dropped, then made again by it.
DROP INDEX fact_text_user IF EXISTS
