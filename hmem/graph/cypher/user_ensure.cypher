// params: user_id, now
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.created_at = $now
RETURN u.user_id AS user_id
