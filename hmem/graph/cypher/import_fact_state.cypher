// params: user_id, ids
// Which of these facts are stored, and whether each is still open: what a sync
// compares with its source. No times: hydrating four datetimes a fact cost more than
// the whole lookup (10,000 facts).
MATCH (f:Fact {user_id: $user_id}) USING INDEX f:Fact(user_id, id)
WHERE f.id IN $ids
RETURN f.id AS id, f.known_to IS NULL AS open
