// params: user_id, fact_id, believed_at
// believed_at: null shows the fact as stored; a time shows it as it was believed then
// (nothing if it was not known yet; its belief history entry of then: _as_believed.cypher).
MATCH (f:Fact {user_id: $user_id, id: $fact_id}) USING INDEX f:Fact(user_id, id)
WHERE $believed_at IS NULL OR f.known_from <= $believed_at
WITH f,
//include version
  AS v
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
RETURN
//include as_believed
  AS fact, collect(e.name) AS entities
