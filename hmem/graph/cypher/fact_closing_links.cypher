// params: user_id, fact_id
// The edges that close the fact now (an edge a restore undid is history, not a close).
MATCH (n:Fact {user_id: $user_id})-[r:SUPERSEDES]->(f:Fact {user_id: $user_id, id: $fact_id})
USING INDEX f:Fact(user_id, id)
WHERE r.undone_at IS NULL
RETURN n.id AS new_id, f.id AS old_id, r.reason AS reason, r.at AS at, r.relation AS relation,
       coalesce(r.inferred, false) AS inferred, r.cue AS cue, r.score AS score
