// params: user_id, links
// new -[:SUPERSEDES]-> old for imported facts whose windows are already closed (an
// open old fact is not linked: a successor never leaves two facts current); MERGE, so
// a rerun of the import adds nothing.
UNWIND $links AS l
MATCH (n:Fact {user_id: $user_id, id: l.new_id}) USING INDEX n:Fact(user_id, id)
MATCH (o:Fact {user_id: $user_id, id: l.old_id}) USING INDEX o:Fact(user_id, id)
WHERE o.known_to IS NOT NULL
MERGE (n)-[s:SUPERSEDES]->(o)
  ON CREATE SET s.reason = l.reason, s.at = l.at, s.relation = l.relation, s.created = true
WITH s, coalesce(s.created, false) AS fresh
REMOVE s.created
RETURN count(CASE WHEN fresh THEN 1 END) AS created
