// params: user_id, fact_ids, episode_id
MATCH (ep:Episode {user_id: $user_id, id: $episode_id})
UNWIND $fact_ids AS fid
MATCH (f:Fact {user_id: $user_id, id: fid})
MERGE (f)-[:FROM]->(ep)
RETURN count(*) AS linked
