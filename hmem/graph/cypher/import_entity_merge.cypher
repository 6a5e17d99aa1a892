// params: user_id, rows, now
// Entities brought from another memory, before any fact mentions them (a source node
// with no edge is kept too); resolved per user by canonical name like entity_link. A
// typed entity wins over one stored as the default 'thing'.
UNWIND $rows AS x
MERGE (e:Entity {user_id: $user_id, canonical: x.canonical})
  ON CREATE SET e.id = x.entity_id, e.name = x.name, e.type = x.type,
                e.aliases = x.aliases, e.created_at = $now
  ON MATCH SET e.type = CASE WHEN e.type = 'thing' THEN x.type ELSE e.type END
RETURN count(e) AS merged
