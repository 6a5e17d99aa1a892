// params: user_id, rows, now
// Entities brought from another memory, before any fact mentions them (a source node
// with no edge is kept too); resolved per user by canonical name like entity_link.
UNWIND $rows AS x
MERGE (e:Entity {user_id: $user_id, canonical: x.canonical})
  ON CREATE SET e.id = x.entity_id, e.name = x.name, e.type = x.type,
                e.aliases = x.aliases, e.created_at = $now
RETURN count(e) AS merged
