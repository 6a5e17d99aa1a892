// params:
// Maya's "Sam" is not Bob's "Sam": entities are unique per (user, canonical name).
CREATE CONSTRAINT entity_user_canonical_unique IF NOT EXISTS FOR (e:Entity) REQUIRE (e.user_id, e.canonical) IS UNIQUE
