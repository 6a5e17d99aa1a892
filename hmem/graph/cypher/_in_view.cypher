// Fragment (//include in_view): whether fact f is in the search's temporal view, a
// boolean expression over $mode, $now, $as_of, $as_of_event. Written once here and
// included wherever a statement filters facts (hmem.graph.catalog). docs/time.md has
// the rules: belief time b = $as_of, else $now; world time w = $as_of_event, else b.
// A fact's belief history is three lists (one entry per change, oldest first):
// belief_at (the belief time of the change), belief_to (the world end believed from
// then; 9999-12-31 for none) and belief_why ('' for open or restored, else the close's
// reason). Only 'retraction' and 'user_edit' withdraw belief; a supersession or an end
// closes the world window and the fact stays believed with its end.
// 'history' also finds a fact put right as never true (user_edit, an empty window): it
// is never shown, it hands what it matched to its correction (hmem.recall.rules).
// 'current' is 'asof' at b = w = $now, read from the latest entry (the node's own
// valid_to, known_to and close_reason): a fact true from a later day is not current yet.
  (($mode = 'current' AND f.known_from <= $now AND f.valid_from <= $now
    AND (f.valid_to IS NULL OR f.valid_to > $now)
    AND NOT coalesce(f.close_reason IN ['retraction', 'user_edit'] AND f.known_to <= $now, false))
    OR ($mode = 'history' AND (f.valid_to IS NULL OR f.valid_to > f.valid_from
                               OR f.close_reason = 'user_edit'))
    OR ($mode = 'asof_history'
        AND ($as_of IS NULL OR f.known_from <= $as_of)
        AND ($as_of_event IS NULL OR f.valid_from <= $as_of_event))
    OR ($mode = 'asof'
        AND f.valid_from <= coalesce($as_of_event, $as_of, $now)
        AND any(i IN range(0, size(f.belief_at) - 1)
                WHERE f.belief_at[i] <= coalesce($as_of, $now)
                  AND (i = size(f.belief_at) - 1 OR f.belief_at[i + 1] > coalesce($as_of, $now))
                  AND NOT f.belief_why[i] IN ['retraction', 'user_edit']
                  AND f.belief_to[i] > coalesce($as_of_event, $as_of, $now))))
