// params: user_id, episode_id
MATCH (ep:Episode {user_id: $user_id, id: $episode_id}) USING INDEX ep:Episode(user_id, id)
OPTIONAL MATCH (f:Fact {user_id: $user_id})-[:FROM]->(ep)
RETURN ep.id AS id, collect(f.id) AS fact_ids
