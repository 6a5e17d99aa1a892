// params: user_id, fact_id
// Every fact on the supersession chain through this one, and the edges among them.
MATCH (start:Fact {user_id: $user_id, id: $fact_id}) USING INDEX start:Fact(user_id, id)
OPTIONAL MATCH (start)-[:SUPERSEDES*1..64]->(older:Fact {user_id: $user_id})
OPTIONAL MATCH (newer:Fact {user_id: $user_id})-[:SUPERSEDES*1..64]->(start)
WITH start, collect(DISTINCT older) + collect(DISTINCT newer) + [start] AS chain
UNWIND chain AS f
OPTIONAL MATCH (f)-[r:SUPERSEDES]->(o:Fact {user_id: $user_id})
WHERE o IN chain
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
WITH f, collect(DISTINCT e.name) AS entities,
     collect(DISTINCT CASE WHEN r IS NULL THEN null
             ELSE {old_id: o.id, reason: r.reason, at: r.at, relation: r.relation,
                   inferred: coalesce(r.inferred, false), cue: r.cue, score: r.score} END) AS links
RETURN f {.id, .user_id, .text, .category, .importance, .hash, .valid_from, .valid_to, .known_from, .known_to, .ingested_at, .last_used_at, .corroborations, .source, .speaker, .close_reason, .valid_precision, .valid_to_precision} AS fact, entities, links
