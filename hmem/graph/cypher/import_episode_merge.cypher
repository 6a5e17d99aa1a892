// params: user_id, episodes
UNWIND $episodes AS x
MERGE (ep:Episode {user_id: $user_id, id: x.id})
  ON CREATE SET ep.session_id = x.session_id, ep.observed_at = x.observed_at,
                ep.text = x.text, ep.redactions = x.redactions
RETURN count(ep) AS merged
