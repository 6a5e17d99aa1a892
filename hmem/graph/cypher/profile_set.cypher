// params: user_id, text, now
MERGE (p:Profile {user_id: $user_id})
SET p.text = $text, p.updated_at = $now
RETURN p.updated_at AS updated_at
