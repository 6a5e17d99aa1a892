// Where did the user live before? Places from facts that are no longer current, with
// what replaced each one and why.
:param user_id => 'demo:maya';

MATCH (old:Fact {user_id: $user_id})-[:MENTIONS]->(place:Entity {user_id: $user_id, type: 'place'})
WHERE old.known_to IS NOT NULL OR old.valid_to IS NOT NULL
OPTIONAL MATCH (new:Fact {user_id: $user_id})-[s:SUPERSEDES]->(old)
RETURN old.text AS before, collect(DISTINCT place.name) AS places,
       old.valid_from AS true_from, old.valid_to AS true_until,
       s.reason AS reason, new.text AS replaced_by
ORDER BY true_from;
