// Supersession chains: each whole chain from the newest fact back to the oldest it
// replaced, as a path (Browser draws it) and as text.
:param user_id => 'demo:maya';

MATCH p = (newest:Fact {user_id: $user_id})-[:SUPERSEDES*1..64]->(oldest:Fact {user_id: $user_id})
WHERE NOT EXISTS { MATCH (:Fact {user_id: $user_id})-[:SUPERSEDES]->(newest) }
  AND NOT EXISTS { MATCH (oldest)-[:SUPERSEDES]->(:Fact {user_id: $user_id}) }
RETURN p, [f IN nodes(p) | f.text] AS newest_to_oldest,
       [r IN relationships(p) | r.reason] AS reasons
ORDER BY newest.valid_from;
