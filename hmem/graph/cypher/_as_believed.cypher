// Fragment (//include as_believed): fact f as a map, as it was believed at the belief
// time the statement looks from. `v` (bound by the statement: the index of f's belief
// history entry in force then, _version.cypher; null shows the fact as stored) picks
// the window end believed then and the close in force then (known_to, close_reason):
// what was learned later is hidden, and a close undone later (restore) still shows.
// Same field order as every other fact map.
f {.id, .user_id, .text, .category, .importance, .hash, .valid_from,
   valid_to: CASE WHEN v IS NULL THEN f.valid_to
                  WHEN f.belief_to[v] = datetime('9999-12-31T00:00:00Z') THEN null
                  ELSE f.belief_to[v] END,
   .known_from,
   known_to: CASE WHEN v IS NULL THEN f.known_to WHEN f.belief_why[v] = '' THEN null
                  ELSE f.belief_at[v] END,
   .ingested_at, .last_used_at, .corroborations, .source, .speaker,
   close_reason: CASE WHEN v IS NULL THEN f.close_reason WHEN f.belief_why[v] = '' THEN null
                      ELSE f.belief_why[v] END,
   .valid_precision,
   valid_to_precision: CASE WHEN v IS NULL OR f.belief_to[v] = f.valid_to
                            THEN f.valid_to_precision ELSE null END}
