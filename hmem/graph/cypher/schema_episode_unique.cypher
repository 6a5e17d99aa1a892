// params:
CREATE CONSTRAINT episode_user_id_unique IF NOT EXISTS FOR (e:Episode) REQUIRE (e.user_id, e.id) IS UNIQUE
