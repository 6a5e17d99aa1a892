// params: user_id
MATCH (ep:Episode {user_id: $user_id})
RETURN ep {.id, .user_id, .session_id, .observed_at, .text, .redactions} AS episode
ORDER BY ep.observed_at, ep.id
