// params: user_id
MATCH (n:Profile {user_id: $user_id})
DETACH DELETE n
