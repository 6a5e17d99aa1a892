// What did the assistant believe was true on a date? (docs/time.md, the as_of view:
// each fact's belief history entry in force on that date, unless a retraction or a
// correction, whose window as believed then holds the date)
:param user_id => 'demo:maya';
:param as_of => datetime('2026-03-01T00:00:00Z');

MATCH (f:Fact {user_id: $user_id})
WITH f, last([i IN range(0, size(f.belief_at) - 1) WHERE f.belief_at[i] <= $as_of]) AS v
WHERE v IS NOT NULL AND NOT f.belief_why[v] IN ['retraction', 'user_edit']
  AND f.valid_from <= $as_of AND f.belief_to[v] > $as_of
RETURN f.text AS believed, f.known_from AS since,
       CASE WHEN f.belief_to[v] = datetime('9999-12-31T00:00:00Z') THEN null
            ELSE f.belief_to[v] END AS true_until, f.id AS id
ORDER BY since, id;
