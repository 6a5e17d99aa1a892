// params: user_id, fact_id
// Undo a supersession or a retraction: reopen the fact, drop the edges that closed it.
// The caller records what was undone in the audit trail before this runs.
MATCH (f:Fact {user_id: $user_id, id: $fact_id}) USING INDEX f:Fact(user_id, id)
WHERE f.known_to IS NOT NULL
OPTIONAL MATCH (:Fact {user_id: $user_id})-[r:SUPERSEDES]->(f)
WITH f, collect(r) AS closing
FOREACH (r IN closing | DELETE r)
SET f.valid_to = f.valid_to_before_close
REMOVE f.known_to, f.close_reason, f.valid_to_before_close
RETURN f.id AS id, size(closing) AS undone
