// params:
CREATE INDEX fact_valid_from IF NOT EXISTS FOR (f:Fact) ON (f.valid_from)
