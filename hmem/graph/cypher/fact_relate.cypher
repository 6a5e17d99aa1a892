// params: user_id, pairs, now
UNWIND $pairs AS p
MATCH (a:Fact {user_id: $user_id, id: p.a})
MATCH (b:Fact {user_id: $user_id, id: p.b})
MERGE (a)-[r:RELATES]->(b)
  ON CREATE SET r.at = $now
RETURN count(*) AS linked
