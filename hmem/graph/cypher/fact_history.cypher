// params: user_id, fact_id, believed_at
// Every fact on the supersession chain through this one, and the edges among them.
// believed_at (null: as believed now, each fact as stored; a link a restore undid is
// left out): the chain as it was believed then: facts not known yet, links made later
// and links undone by then are left out (the walk follows only links believed then),
// and each fact is shown as believed then (_version.cypher, _as_believed.cypher).
MATCH (start:Fact {user_id: $user_id, id: $fact_id}) USING INDEX start:Fact(user_id, id)
WHERE $believed_at IS NULL OR start.known_from <= $believed_at
OPTIONAL MATCH back = (start)-[:SUPERSEDES*1..64]->(older:Fact {user_id: $user_id})
WHERE all(r IN relationships(back) WHERE CASE WHEN $believed_at IS NULL THEN r.undone_at IS NULL
          ELSE r.at <= $believed_at AND (r.undone_at IS NULL OR r.undone_at > $believed_at) END)
OPTIONAL MATCH ahead = (newer:Fact {user_id: $user_id})-[:SUPERSEDES*1..64]->(start)
WHERE all(r IN relationships(ahead) WHERE CASE WHEN $believed_at IS NULL THEN r.undone_at IS NULL
          ELSE r.at <= $believed_at AND (r.undone_at IS NULL OR r.undone_at > $believed_at) END)
WITH start, collect(DISTINCT older) + collect(DISTINCT newer) + [start] AS chain
UNWIND chain AS f
WITH f, chain
WHERE $believed_at IS NULL OR f.known_from <= $believed_at
OPTIONAL MATCH (f)-[r:SUPERSEDES]->(o:Fact {user_id: $user_id})
WHERE o IN chain AND CASE WHEN $believed_at IS NULL THEN r.undone_at IS NULL
      ELSE r.at <= $believed_at AND o.known_from <= $believed_at
           AND (r.undone_at IS NULL OR r.undone_at > $believed_at) END
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
WITH f, collect(DISTINCT e.name) AS entities,
     collect(DISTINCT CASE WHEN r IS NULL THEN null
             ELSE {old_id: o.id, reason: r.reason, at: r.at, relation: r.relation,
                   inferred: coalesce(r.inferred, false), cue: r.cue, score: r.score} END) AS links
WITH f, entities, links,
//include version
  AS v
RETURN
//include as_believed
  AS fact, entities, links
