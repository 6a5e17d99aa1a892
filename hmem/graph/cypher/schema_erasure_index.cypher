// params:
CREATE INDEX erasure_at IF NOT EXISTS FOR (e:Erasure) ON (e.at)
