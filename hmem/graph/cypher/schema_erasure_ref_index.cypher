// params:
CREATE INDEX erasure_user_ref IF NOT EXISTS FOR (e:Erasure) ON (e.user_ref)
