// params:
CREATE CONSTRAINT profile_user_unique IF NOT EXISTS FOR (p:Profile) REQUIRE p.user_id IS UNIQUE
