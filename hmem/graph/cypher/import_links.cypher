// params: user_id, links
// The SUPERSEDES edges of an export (hmem's own), as they were: reason, time, relation,
// how they were inferred, and undone_at for one a restore undid. Both facts are already
// imported; MERGE, so a rerun of the import adds nothing.
UNWIND $links AS l
MATCH (n:Fact {user_id: $user_id, id: l.new_id}) USING INDEX n:Fact(user_id, id)
MATCH (o:Fact {user_id: $user_id, id: l.old_id}) USING INDEX o:Fact(user_id, id)
MERGE (n)-[s:SUPERSEDES]->(o)
  ON CREATE SET s.reason = l.reason, s.at = l.at, s.relation = l.relation,
                s.inferred = l.inferred, s.cue = l.cue, s.score = l.score,
                s.undone_at = l.undone_at, s.created = true
WITH s, coalesce(s.created, false) AS fresh
REMOVE s.created
RETURN count(CASE WHEN fresh THEN 1 END) AS created
