// Open conflicts: two facts that both still stand, linked as conflicting (a RELATES edge
// whose relation is 'conflicts' or 'contradicts') and never resolved by a SUPERSEDES.
// One row always: how many, and the pairs with their dates.
:param user_id => 'demo:maya';

OPTIONAL MATCH (a:Fact {user_id: $user_id})-[r:RELATES]-(b:Fact {user_id: $user_id})
WHERE r.relation IN ['conflicts', 'contradicts'] AND a.id < b.id
  AND a.known_to IS NULL AND b.known_to IS NULL
WITH collect(CASE WHEN a IS NULL THEN null ELSE {
       a: a.text, a_since: a.valid_from, a_id: a.id,
       b: b.text, b_since: b.valid_from, b_id: b.id} END) AS pairs
RETURN size(pairs) AS open_conflicts, pairs;
