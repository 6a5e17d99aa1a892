// params:
CREATE INDEX entity_user IF NOT EXISTS FOR (e:Entity) ON (e.user_id)
