// params: user_id, links
// new -[:SUPERSEDES]-> old. Closing the old fact is fact_close_many's job.
UNWIND $links AS l
MATCH (n:Fact {user_id: $user_id, id: l.new_id})
MATCH (o:Fact {user_id: $user_id, id: l.old_id})
CREATE (n)-[:SUPERSEDES {reason: l.reason, at: l.at, relation: l.relation}]->(o)
RETURN count(*) AS linked
