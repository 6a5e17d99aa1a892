// params: user_id, fact_id, at
// Undo a supersession or a retraction: reopen the fact from belief time $at on. Nothing
// is deleted: the edges that closed it stay, marked undone from $at (r.undone_at), so a
// view as of an earlier belief time still shows the successor, and the current views
// leave them out. Past belief is kept: its belief history gains an entry (from $at, the
// end it had before the close, reason ''), so a view as of a time before $at still shows
// it closed (docs/time.md). Only at or after its last change.
// The caller records what was undone in the audit trail before this runs.
MATCH (f:Fact {user_id: $user_id, id: $fact_id}) USING INDEX f:Fact(user_id, id)
WHERE f.known_to IS NOT NULL AND last(f.belief_at) <= $at
OPTIONAL MATCH (:Fact {user_id: $user_id})-[r:SUPERSEDES]->(f)
WHERE r.undone_at IS NULL
WITH f, collect(r) AS closing
FOREACH (r IN closing | SET r.undone_at = $at)
SET f.valid_to = f.valid_to_before_close
SET f.belief_at = f.belief_at + [$at],
    f.belief_to = f.belief_to + [coalesce(f.valid_to, datetime('9999-12-31T00:00:00Z'))],
    f.belief_why = f.belief_why + ['']
REMOVE f.known_to, f.close_reason, f.valid_to_before_close
RETURN f.id AS id, size(closing) AS undone
