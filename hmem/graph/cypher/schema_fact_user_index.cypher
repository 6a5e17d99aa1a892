// params:
CREATE INDEX fact_user IF NOT EXISTS FOR (f:Fact) ON (f.user_id)
