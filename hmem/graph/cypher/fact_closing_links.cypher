// params: user_id, fact_id
MATCH (n:Fact {user_id: $user_id})-[r:SUPERSEDES]->(f:Fact {user_id: $user_id, id: $fact_id})
USING INDEX f:Fact(user_id, id)
RETURN n.id AS new_id, f.id AS old_id, r.reason AS reason, r.at AS at, r.relation AS relation,
       coalesce(r.inferred, false) AS inferred, r.cue AS cue, r.score AS score
