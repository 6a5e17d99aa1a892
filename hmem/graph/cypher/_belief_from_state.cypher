// Fragment (//include belief_from_state): SET fact f's belief history (_in_view.cypher)
// from its state fields, for a fact made without one: a fact stored by an older hmem
// (schema_fact_belief_history.cypher), imported, or loaded by the benchmark. Open: one
// entry; closed: the entry it was learned with (the end it had before the close, else
// none) and the close at known_to.
SET f.belief_at = CASE WHEN f.known_to IS NULL THEN [f.known_from] ELSE [f.known_from, f.known_to] END,
    f.belief_to = CASE WHEN f.known_to IS NULL
                       THEN [coalesce(f.valid_to, datetime('9999-12-31T00:00:00Z'))]
                       ELSE [coalesce(f.valid_to_before_close, datetime('9999-12-31T00:00:00Z')),
                             coalesce(f.valid_to, datetime('9999-12-31T00:00:00Z'))] END,
    f.belief_why = CASE WHEN f.known_to IS NULL THEN ['']
                        ELSE ['', coalesce(f.close_reason, 'retraction')] END
