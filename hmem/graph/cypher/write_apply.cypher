// params: user_id, indexed, now, times, facts, links, closes, pairs, merges, episodes, audit
// Second and last statement of a write transaction (store.GraphStore.write): every
// change of one write in one round trip. Each CALL block takes one list and is a no-op
// for an empty one; they run in order, so the links see the facts created above them.
// x.embedding is stored as float32 by setNodeVectorProperty (half the bytes of a plain
// SET of a float list); x.packed is the same vector as float32 little-endian bytes, which
// hmem's procedure reads (hmem.localdb.plugin). With hmem's plugin (the //native text)
// the vector is sent only as those bytes and hmem.vector.set stores the same float array
// from them: a float list parameter costs the server an object per value to unpack.
// New facts have no MENTIONS yet: CREATE (the caller sends each fact's entities once
// per canonical name). The user's root
// exists: the erasure guard (user_guard.cypher) merged it first, in this transaction.
// $indexed: the user's facts go into the vector index (user_vector_index_fill.cypher):
// new ones are labelled IndexedFact, the label the index covers. A smaller user's are
// not: they are searched by the exact scan, and their commit skips the index's update.
// A fact's times are positions in $times (each distinct instant sent once: the driver
// spends ~0.1 ms converting each datetime it sends); $times[null] is null.
CALL () {
  UNWIND $facts AS x
  CREATE (f:Fact {
    user_id: $user_id, id: x.id, text: x.text, category: x.category,
    importance: x.importance, hash: x.hash,
    valid_from: $times[x.valid_from], valid_to: $times[x.valid_to],
    known_from: $times[x.known_from], known_to: null,
    ingested_at: $now, last_used_at: null,
    corroborations: 1, source: x.source, speaker: x.speaker
  })
  FOREACH (_ IN CASE WHEN $indexed THEN [1] ELSE [] END | SET f:IndexedFact)
  WITH f, x
  CALL (f, x) {
//plain begin
    WITH f, x WHERE x.embedding IS NOT NULL
    CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
//plain end
//native     WITH f, x WHERE x.packed IS NOT NULL
//native     CALL hmem.vector.set(f, 'embedding', x.packed)
    SET f.embedding_f32le = x.packed
  }
  CALL (f, x) {
    UNWIND x.entities AS m
    MERGE (e:Entity {user_id: $user_id, canonical: m.canonical})
      ON CREATE SET e.id = m.entity_id, e.name = m.name, e.type = m.type,
                    e.aliases = m.aliases, e.created_at = $now
      ON MATCH SET e.aliases = e.aliases + [a IN m.aliases WHERE NOT a IN e.aliases]
    CREATE (f)-[:MENTIONS]->(e)
  }
  RETURN count(f) AS created
}
CALL () {
  // new -[:SUPERSEDES]-> old
  UNWIND $links AS l
  MATCH (n:Fact {user_id: $user_id, id: l.new_id})
  MATCH (o:Fact {user_id: $user_id, id: l.old_id})
  CREATE (n)-[:SUPERSEDES {reason: l.reason, at: l.at, relation: l.relation}]->(o)
  RETURN count(*) AS linked
}
CALL () {
  // close the superseded facts in both clocks (as fact_close_many.cypher)
  UNWIND $closes AS x
  MATCH (f:Fact {user_id: $user_id, id: x.id})
  WHERE f.known_to IS NULL
  SET f.valid_to_before_close = f.valid_to,
      f.valid_to = CASE WHEN f.valid_to IS NOT NULL AND f.valid_to < x.valid_to
                        THEN f.valid_to ELSE x.valid_to END,
      f.known_to = x.known_to,
      f.close_reason = x.reason
  RETURN count(f) AS closed
}
CALL () {
  // 'relates' (both stay true) or 'conflicts' (both open, unresolved)
  UNWIND $pairs AS p
  MATCH (a:Fact {user_id: $user_id, id: p.a})
  MATCH (b:Fact {user_id: $user_id, id: p.b})
  MERGE (a)-[r:RELATES]->(b)
    ON CREATE SET r.at = $now, r.relation = p.relation
  RETURN count(*) AS related
}
CALL () {
  UNWIND $merges AS fid
  MATCH (f:Fact {user_id: $user_id, id: fid})
  SET f.corroborations = f.corroborations + 1
  RETURN count(f) AS corroborated
}
CALL () {
  // zero or one episode, and the facts that came from it
  UNWIND $episodes AS x
  MERGE (ep:Episode {user_id: $user_id, id: x.id})
    ON CREATE SET ep.session_id = x.session_id, ep.observed_at = x.observed_at,
                  ep.text = x.text, ep.redactions = x.redactions
  WITH ep, x
  UNWIND x.links AS link
  MATCH (f:Fact {user_id: $user_id, id: link.id})
  MERGE (f)-[r:FROM]->(ep)
  // turn: the fact's position in the conversation (FactDraft.turn), so "the turn
  // before / after" is one hop through the episode (search_recall.cypher)
  SET r.turn = coalesce(link.turn, r.turn)
  RETURN count(*) AS sourced
}
CALL () {
  // The audit names operations and ids, never memory text.
  UNWIND $audit AS a
  CREATE (e:AuditEvent {user_id: $user_id, id: a.id, at: a.at, op: a.op,
                        fact_ids: a.fact_ids, detail: a.detail})
  RETURN count(e) AS audited
}
RETURN created, linked, closed, related, corroborated, sourced, audited
