// An entity's neighbourhood: the facts that mention it and the other entities those
// facts mention, closed facts included (they are history, not noise).
:param user_id => 'demo:maya';
:param entity => 'London';

MATCH (e:Entity {user_id: $user_id})
WHERE e.canonical = toLower(trim($entity)) OR $entity IN e.aliases
MATCH (f:Fact {user_id: $user_id})-[m:MENTIONS]->(e)
OPTIONAL MATCH (f)-[m2:MENTIONS]->(other:Entity {user_id: $user_id})
WHERE other <> e
RETURN e, m, f, m2, other;
