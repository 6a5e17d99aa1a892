// params: user_id, episode
MERGE (ep:Episode {user_id: $user_id, id: $episode.id})
  ON CREATE SET ep.session_id = $episode.session_id, ep.observed_at = $episode.observed_at,
                ep.text = $episode.text, ep.redactions = $episode.redactions
RETURN ep.id AS id
