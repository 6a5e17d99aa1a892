// params: user_id, mode, now, as_of, as_of_event, believed_at, skip, limit
// mode: 'current' (believed now and not ended), 'all', or 'asof' (the as_of / as_of_event
// filters below select the past; either may be null).
// believed_at: the belief time the facts are shown as of ($as_of, or $now for the
// current view; null for 'all', which shows what is stored): a close learned after it
// is not shown, and the filters read the fact as it was then (Lena lived in Rome with
// no end, as believed in March, even though her move was learned in June).
// 'current' is exactly 'asof' at $now with the world clock at $now: a fact whose
// known_from is later than now (a backfill or a skewed clock) is not believed yet,
// in this view as in as_of=now (docs/api.md, "Two clocks").
MATCH (f:Fact {user_id: $user_id})
WITH f, $believed_at IS NOT NULL AND f.known_to > $believed_at AS unseen
WITH f, unseen,
     CASE WHEN unseen THEN null ELSE f.known_to END AS known_to,
     CASE WHEN unseen THEN f.valid_to_before_close ELSE f.valid_to END AS valid_to
WHERE ($mode <> 'current'
       OR (f.known_from <= $now AND known_to IS NULL AND (valid_to IS NULL OR valid_to > $now)))
  AND ($mode <> 'asof' OR $as_of IS NULL
       OR (f.known_from <= $as_of AND (known_to IS NULL OR known_to > $as_of)))
  AND ($mode <> 'asof' OR $as_of_event IS NULL
       OR (f.valid_from <= $as_of_event AND (valid_to IS NULL OR valid_to > $as_of_event)))
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
WITH f, unseen, collect(e.name) AS entities
ORDER BY f.valid_from, f.known_from, f.id
SKIP $skip LIMIT $limit
RETURN
//include as_believed
  AS fact, entities
