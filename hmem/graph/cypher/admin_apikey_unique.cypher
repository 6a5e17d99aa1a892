// params:
CREATE CONSTRAINT apikey_key_id_unique IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.key_id IS UNIQUE
