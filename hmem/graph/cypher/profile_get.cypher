// params: user_id
MATCH (p:Profile {user_id: $user_id})
RETURN p.text AS text, p.updated_at AS updated_at
