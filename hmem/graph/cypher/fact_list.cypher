// params: user_id, mode, now, as_of, as_of_event, believed_at, skip, limit
// mode: 'current' (true now as believed now), 'all' (everything stored), or 'asof'
// (true at $as_of_event, else at $as_of, as believed at $as_of, else now: docs/time.md).
// believed_at: the belief time the facts are shown as of ($as_of, or $now for the
// current view; null for 'all'): each fact is read from its belief history entry in
// force then (_version.cypher), so a close learned later is not shown, and a fact
// closed in world time is still believed with its end (Bosch until December).
// 'current' is exactly 'asof' at $now with the world clock at $now: a fact whose
// known_from is later than now (a backfill or a skewed clock) is not believed yet, and
// one true from a later day (an announced change) is not true yet.
MATCH (f:Fact {user_id: $user_id})
WITH f,
//include version
  AS v
WITH f, v, CASE WHEN $mode = 'current' THEN $now ELSE coalesce($as_of_event, $as_of, $now) END AS w
WHERE $mode = 'all'
   OR (v IS NOT NULL AND NOT f.belief_why[v] IN ['retraction', 'user_edit']
       AND f.valid_from <= w AND f.belief_to[v] > w)
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
WITH f, v, collect(e.name) AS entities
ORDER BY f.valid_from, f.known_from, f.id
SKIP $skip LIMIT $limit
RETURN
//include as_believed
  AS fact, entities
