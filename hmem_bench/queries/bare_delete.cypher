// params: user_id
MATCH (n:BenchBareFact {user_id: $user_id})
DETACH DELETE n
