// params: user_id, before, k
// Read before a plain-text write that says it puts a slip right ("sorry, I meant teal",
// hmem.infer.write): the user's open facts learned last before $before (the write's
// observed time), newest first; the caller takes the first only when it stands alone at
// its time (a correction corrects the statement just before it, not one of a batch).
MATCH (f:Fact {user_id: $user_id})
WHERE f.known_to IS NULL AND f.known_from < $before
RETURN f.id AS id, f.text AS text, f.known_from AS known_from, 1.0 AS score
ORDER BY f.known_from DESC
LIMIT $k
