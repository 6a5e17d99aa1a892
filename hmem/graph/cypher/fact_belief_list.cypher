// params: user_id
// Every fact's belief history (docs/time.md), for export: belief times, the world end
// believed from each (null: none) and why ('' : believed).
MATCH (f:Fact {user_id: $user_id}) USING INDEX f:Fact(user_id)
RETURN f.id AS id, f.belief_at AS at,
       [t IN f.belief_to | CASE WHEN t = datetime('9999-12-31T00:00:00Z') THEN null ELSE t END] AS valid_to,
       f.belief_why AS why
ORDER BY id
