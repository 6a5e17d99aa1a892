// params: user_id, fact_id
// Real erasure: the fact, its vector (a property of the node), the episodes it came
// from, and entities no other fact mentions. Other facts lose that provenance link.
MATCH (f:Fact {user_id: $user_id, id: $fact_id}) USING INDEX f:Fact(user_id, id)
OPTIONAL MATCH (f)-[:FROM]->(ep:Episode {user_id: $user_id})
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
WITH f, collect(DISTINCT ep) AS episodes, collect(DISTINCT e) AS entities
DETACH DELETE f
WITH episodes, entities
FOREACH (ep IN episodes | DETACH DELETE ep)
WITH episodes, [e IN entities WHERE NOT EXISTS { (e)<-[:MENTIONS]-() }] AS orphans
FOREACH (e IN orphans | DETACH DELETE e)
RETURN size(episodes) AS episodes, size(orphans) AS entities
