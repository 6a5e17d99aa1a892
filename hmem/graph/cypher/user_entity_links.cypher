// params: user_id
// How connected a user's entity graph is: MENTIONS edges, entities, facts that name one.
MATCH (f:Fact {user_id: $user_id})-[m:MENTIONS]->(e:Entity {user_id: $user_id})
RETURN count(m) AS links, count(DISTINCT e) AS entities, count(DISTINCT f) AS facts
