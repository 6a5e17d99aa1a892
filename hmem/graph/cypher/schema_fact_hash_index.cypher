// params:
CREATE INDEX fact_user_hash IF NOT EXISTS FOR (f:Fact) ON (f.user_id, f.hash)
