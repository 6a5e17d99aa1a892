// params: user_id
// Every link stored, an undone one (a restore of its old fact) with its undone_at.
MATCH (n:Fact {user_id: $user_id})-[r:SUPERSEDES]->(o:Fact {user_id: $user_id})
USING INDEX n:Fact(user_id)
RETURN n.id AS new_id, o.id AS old_id, r.reason AS reason, r.at AS at, r.relation AS relation,
       coalesce(r.inferred, false) AS inferred, r.cue AS cue, r.score AS score,
       r.undone_at AS undone_at
ORDER BY r.at, n.id
