// params: user_id, rows, now
UNWIND $rows AS x
MERGE (e:Entity {user_id: $user_id, canonical: x.canonical})
  ON CREATE SET e.id = x.entity_id, e.name = x.name, e.type = x.type,
                e.aliases = x.aliases, e.created_at = $now
  ON MATCH SET e.aliases = e.aliases + [a IN x.aliases WHERE NOT a IN e.aliases]
WITH e, x
MATCH (f:Fact {user_id: $user_id, id: x.fact_id}) USING INDEX f:Fact(user_id, id)
MERGE (f)-[:MENTIONS]->(e)
RETURN count(*) AS linked
