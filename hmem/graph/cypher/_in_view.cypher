// Fragment (//include in_view): whether fact f is in the search's temporal view, a
// boolean expression over $mode, $now, $as_of, $as_of_event. Written once here and
// included wherever a statement filters facts (hmem.graph.catalog). 'current' is
// believed now as in 'asof' at $now: a fact known only from a later time is not yet.
  (($mode = 'current' AND f.known_to IS NULL AND f.known_from <= $now
    AND (f.valid_to IS NULL OR f.valid_to > $now))
    OR ($mode = 'history' AND (f.valid_to IS NULL OR f.valid_to > f.valid_from))
    OR ($mode = 'asof_history'
        AND ($as_of IS NULL OR f.known_from <= $as_of)
        AND ($as_of_event IS NULL OR f.valid_from <= $as_of_event))
    OR ($mode = 'asof'
        AND ($as_of IS NULL OR (f.known_from <= $as_of AND (f.known_to IS NULL OR f.known_to > $as_of)))
        AND ($as_of_event IS NULL OR (f.valid_from <= $as_of_event
             AND ((CASE WHEN f.known_to > $as_of THEN f.valid_to_before_close ELSE f.valid_to END) IS NULL
                  OR (CASE WHEN f.known_to > $as_of THEN f.valid_to_before_close ELSE f.valid_to END) > $as_of_event)))))
