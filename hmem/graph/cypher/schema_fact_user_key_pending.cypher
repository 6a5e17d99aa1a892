// params: limit
// Users with facts written before Fact.user_key (the fulltext index's exact user key):
// apply_schema gives their facts the key (schema_fact_user_key_set) before the index.
MATCH (f:Fact) WHERE f.user_key IS NULL
WITH DISTINCT f.user_id AS user_id
LIMIT $limit
RETURN user_id
