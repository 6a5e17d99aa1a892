// params: user_id, ids
// The hits with their entities and the one-hop SUPERSEDES walk: what each replaced
// (older) and what replaced it (newer), each with its windows and the link's reason
// (a link a restore undid is left out)
// and time; RELATES neighbours by id (a relation of 'conflicts' marks an open conflict).
UNWIND $ids AS fid
MATCH (f:Fact {user_id: $user_id, id: fid}) USING INDEX f:Fact(user_id, id)
CALL (f) {
  OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
  RETURN collect(e.name) AS entities
}
CALL (f) {
  OPTIONAL MATCH (f)-[r:SUPERSEDES]->(p:Fact {user_id: $user_id})
  WHERE r.undone_at IS NULL
  RETURN collect(CASE WHEN p IS NULL THEN null ELSE {
    fact: p {.id, .user_id, .text, .category, .importance, .hash, .valid_from, .valid_to, .known_from, .known_to, .ingested_at, .last_used_at, .corroborations, .source, .speaker, .close_reason},
    new_id: f.id, old_id: p.id, reason: r.reason, at: r.at, relation: r.relation} END) AS older
}
CALL (f) {
  OPTIONAL MATCH (s:Fact {user_id: $user_id})-[r:SUPERSEDES]->(f)
  WHERE r.undone_at IS NULL
  RETURN collect(CASE WHEN s IS NULL THEN null ELSE {
    fact: s {.id, .user_id, .text, .category, .importance, .hash, .valid_from, .valid_to, .known_from, .known_to, .ingested_at, .last_used_at, .corroborations, .source, .speaker, .close_reason},
    new_id: s.id, old_id: f.id, reason: r.reason, at: r.at, relation: r.relation} END) AS newer
}
CALL (f) {
  OPTIONAL MATCH (f)-[r:RELATES]-(o:Fact {user_id: $user_id})
  RETURN collect(CASE WHEN o IS NULL THEN null ELSE {id: o.id, relation: r.relation} END) AS related
}
RETURN f {.id, .user_id, .text, .category, .importance, .hash, .valid_from, .valid_to, .known_from, .known_to, .ingested_at, .last_used_at, .corroborations, .source, .speaker, .close_reason} AS fact,
       entities, older, newer, related
