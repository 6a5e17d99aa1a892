// What was true on a date, as far as we know now? (world time: valid_from <= at <
// valid_to, among the facts believed now: a retraction or a correction is not)
:param user_id => 'demo:maya';
:param as_of_event => datetime('2026-02-01T00:00:00Z');

MATCH (f:Fact {user_id: $user_id})
WHERE f.valid_from <= $as_of_event AND (f.valid_to IS NULL OR f.valid_to > $as_of_event)
  AND NOT coalesce(f.close_reason, '') IN ['retraction', 'user_edit']
RETURN f.text AS true_then, f.valid_from AS from, f.valid_to AS until, f.id AS id
ORDER BY from, id;
