// params:
// Fact ids are unique per user: a guessed id of another tenant never collides or leaks.
CREATE CONSTRAINT fact_user_id_unique IF NOT EXISTS FOR (f:Fact) REQUIRE (f.user_id, f.id) IS UNIQUE
