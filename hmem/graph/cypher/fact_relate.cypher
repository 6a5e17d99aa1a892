// params: user_id, pairs, now
// relation: 'relates' (both stay true) or 'conflicts' (both open, unresolved: the read
// path shows both statements with their dates).
UNWIND $pairs AS p
MATCH (a:Fact {user_id: $user_id, id: p.a})
MATCH (b:Fact {user_id: $user_id, id: p.b})
MERGE (a)-[r:RELATES]->(b)
  ON CREATE SET r.at = $now, r.relation = p.relation
RETURN count(*) AS linked
