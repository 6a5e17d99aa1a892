// params:
CREATE INDEX episode_user IF NOT EXISTS FOR (e:Episode) ON (e.user_id)
