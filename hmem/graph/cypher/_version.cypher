// Fragment (//include version): the index of fact f's belief history entry in force at
// $believed_at (the last whose belief_at is not later), as `v`; null when
// $believed_at is null (the fact as stored) or f was not known yet. Used with
// _as_believed.cypher: WITH f, <this> AS v.
CASE WHEN $believed_at IS NULL THEN null
     ELSE last([i IN range(0, size(f.belief_at) - 1) WHERE f.belief_at[i] <= $believed_at]) END
