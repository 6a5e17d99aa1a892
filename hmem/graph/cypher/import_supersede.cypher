// params: user_id, links
// new -[:SUPERSEDES]-> old for imported facts whose windows are already closed (an
// open old fact is not linked: a successor never leaves two facts current); MERGE, so
// a rerun of the import adds nothing. An old fact an earlier sync closed with no
// successor (ended at its invalid_at, or a retraction: graphiti expired it before the
// edge that replaced it was there) takes the link's reason, as one sync of the final graph would have given it: a
// close reason does not depend on when the sync ran.
UNWIND $links AS l
MATCH (n:Fact {user_id: $user_id, id: l.new_id}) USING INDEX n:Fact(user_id, id)
MATCH (o:Fact {user_id: $user_id, id: l.old_id}) USING INDEX o:Fact(user_id, id)
WHERE o.known_to IS NOT NULL
MERGE (n)-[s:SUPERSEDES]->(o)
  ON CREATE SET s.reason = l.reason, s.at = l.at, s.relation = l.relation, s.created = true
WITH s, o, l, coalesce(s.created, false) AS fresh
REMOVE s.created
FOREACH (_ IN CASE WHEN fresh AND o.close_reason IN ['retraction', 'ended'] THEN [1] ELSE [] END |
  SET o.close_reason = l.reason)
WITH s, fresh
RETURN count(CASE WHEN fresh THEN 1 END) AS created
