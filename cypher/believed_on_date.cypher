// What did the assistant believe on a date? (belief time: known_from <= as_of < known_to)
:param user_id => 'demo:maya';
:param as_of => datetime('2026-03-01T00:00:00Z');

MATCH (f:Fact {user_id: $user_id})
WHERE f.known_from <= $as_of AND (f.known_to IS NULL OR f.known_to > $as_of)
RETURN f.text AS believed, f.known_from AS since, f.known_to AS until, f.id AS id
ORDER BY since, id;
