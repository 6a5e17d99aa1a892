// A user's facts as a table: text and dates (both clocks), why a closed one closed and
// what replaced it. No vectors: a node's properties would show its embedding as bytes.
// In Neo4j Browser: run the :param line first, then the query.
:param user_id => 'demo:maya';

MATCH (f:Fact {user_id: $user_id})
OPTIONAL MATCH (f)-[r:SUPERSEDES]->(old:Fact {user_id: $user_id})
RETURN f.text AS fact, date(f.valid_from) AS true_from, date(f.valid_to) AS true_until,
       date(f.known_from) AS believed_from, f.close_reason AS closed, old.text AS replaced
ORDER BY true_from;
