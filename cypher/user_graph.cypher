// A user's facts with their entities and SUPERSEDES / RELATES edges.
// In Neo4j Browser: run the :param line first, then the query.
:param user_id => 'demo:maya';

MATCH (f:Fact {user_id: $user_id})
OPTIONAL MATCH (f)-[r:SUPERSEDES|RELATES|MENTIONS]->(x {user_id: $user_id})
RETURN f, r, x;
