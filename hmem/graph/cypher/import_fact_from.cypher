// params: user_id, pairs
// (fact)-[:FROM]->(episode) for each {fact_id, episode_id}; an unknown episode is skipped.
UNWIND $pairs AS x
MATCH (f:Fact {user_id: $user_id, id: x.fact_id}) USING INDEX f:Fact(user_id, id)
MATCH (ep:Episode {user_id: $user_id, id: x.episode_id}) USING INDEX ep:Episode(user_id, id)
MERGE (f)-[:FROM]->(ep)
RETURN count(*) AS linked
