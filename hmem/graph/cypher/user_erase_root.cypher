// params: user_id
MATCH (n:User {user_id: $user_id})
DETACH DELETE n
