// params:
// fact_text_user made with another configuration than schema_fact_fulltext.cypher's
// (stores before it had the standard analyzer, then an index updated at commit):
// dropped, then made again by it.
DROP INDEX fact_text_user IF EXISTS
