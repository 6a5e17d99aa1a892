// params: now
// Aggregates across users for the "memories per user" dial: counts only, no ids, no text.
// indexed_users: the users whose facts the vector index holds (their root says 'ready').
MATCH (u:User)
OPTIONAL MATCH (f:Fact {user_id: u.user_id})
WHERE NOT coalesce(f.close_reason IN ['retraction', 'user_edit'], false)
  AND (f.valid_to IS NULL OR f.valid_to > $now)
WITH u, count(f) AS n
RETURN count(u) AS users, coalesce(sum(n), 0) AS facts,
       count(CASE WHEN u.vector_index = 'ready' THEN 1 END) AS indexed_users,
       coalesce(max(n), 0) AS max_per_user,
       coalesce(percentileDisc(n, 0.5), 0) AS p50_per_user,
       coalesce(percentileDisc(n, 0.95), 0) AS p95_per_user
