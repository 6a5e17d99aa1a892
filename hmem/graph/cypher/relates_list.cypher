// params: user_id
MATCH (a:Fact {user_id: $user_id})-[:RELATES]->(b:Fact {user_id: $user_id})
USING INDEX a:Fact(user_id)
RETURN a.id AS a, b.id AS b
ORDER BY a, b
