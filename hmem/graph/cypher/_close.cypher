// Fragment (//include close): close open fact f by row x {valid_to, known_to, reason}
// (write_apply.cypher, fact_close_many.cypher). The node's state becomes the close (the
// end: x.valid_to unless it had an earlier one, or none for a withdrawal that keeps it; known_to: when the close was learned),
// and its belief history (_in_view.cypher) gains the entry: from x.known_to, that end
// and that reason. A contradiction, refinement or end keeps the fact believed with its
// end; a retraction or a user edit withdraws it (a user edit's end is its start: never
// true).
SET f.valid_to_before_close = f.valid_to,
    f.valid_to = CASE WHEN x.valid_to IS NULL THEN f.valid_to
                      WHEN f.valid_to IS NOT NULL AND f.valid_to < x.valid_to
                      THEN f.valid_to ELSE x.valid_to END,
    f.known_to = x.known_to,
    f.close_reason = x.reason
SET f.belief_at = f.belief_at + [x.known_to],
    f.belief_to = f.belief_to + [coalesce(f.valid_to, datetime('9999-12-31T00:00:00Z'))],
    f.belief_why = f.belief_why + [x.reason]
