// params: user_id, user_key, indexed, facts, links, now
// Benchmark only (hmem_bench.latency): synthetic facts for one user with their unit
// vectors (x.embedding, drawn by the caller, stored as float32, and x.packed, the same as
// float32 little-endian bytes: both, so that --plain-cypher can scan the same store; the
// product keeps one, write_apply.cypher), entity mentions, and
// SUPERSEDES links that close the older fact. New facts have no MENTIONS yet: CREATE.
// x.valid_from is ISO 8601 text: the driver turns each datetime into a Bolt structure in
// pure Python, which costs more than parsing it here. $indexed: a user big enough for
// the vector index, loaded into it at once (user_vector_index_*.cypher's end state).
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.created_at = $now
SET u.vector_index = CASE WHEN $indexed THEN 'ready' ELSE u.vector_index END
WITH u
UNWIND $facts AS x
CREATE (f:Fact {
  user_id: $user_id, user_key: $user_key, id: x.id, text: x.text, category: x.category,
  importance: x.importance, hash: x.id,
  valid_from: datetime(x.valid_from), valid_to: null,
  known_from: datetime(x.valid_from), known_to: null,
  belief_at: [datetime(x.valid_from)], belief_to: [datetime('9999-12-31T00:00:00Z')], belief_why: [''],
  ingested_at: $now, last_used_at: null,
  corroborations: 1, source: 'bench'
})
FOREACH (_ IN CASE WHEN $indexed THEN [1] ELSE [] END | SET f:IndexedFact)
WITH f, x
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
SET f.embedding_f32le = x.packed
MERGE (e:Entity {user_id: $user_id, canonical: x.entity})
  ON CREATE SET e.id = x.entity_id, e.name = x.entity, e.type = 'thing', e.aliases = [], e.created_at = $now
CREATE (f)-[:MENTIONS]->(e)
WITH count(f) AS created
CALL (created) {
  UNWIND $links AS l
  MATCH (n:Fact {user_id: $user_id, id: l.new_id}) USING INDEX n:Fact(user_id, id)
  MATCH (o:Fact {user_id: $user_id, id: l.old_id}) USING INDEX o:Fact(user_id, id)
  CREATE (n)-[:SUPERSEDES {reason: 'contradiction', at: n.known_from, relation: null}]->(o)
  SET o.known_to = n.known_from, o.valid_to = n.valid_from, o.close_reason = 'contradiction',
      o.belief_at = [o.known_from, n.known_from],
      o.belief_to = [datetime('9999-12-31T00:00:00Z'), n.valid_from], o.belief_why = ['', 'contradiction']
  RETURN count(*) AS linked
}
RETURN created, linked
