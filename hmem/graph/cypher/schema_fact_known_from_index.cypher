// params:
CREATE INDEX fact_known_from IF NOT EXISTS FOR (f:Fact) ON (f.known_from)
