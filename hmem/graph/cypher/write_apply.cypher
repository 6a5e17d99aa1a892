// params: user_id, user_key, user_ref, accepted, count_cap, now, times, facts, links, closes, pairs, merges, episodes, audit
// The last statement of a write transaction (store.GraphStore.write), and for a write
// that names no stored fact (no supersedes, relates, conflicts or corroborations: most
// writes) the only one: every change of one write in one round trip.
// It starts with the erasure guard (_guard.cypher: the user's lock, then the erasure
// markers; a write with targets ran it already in write_check.cypher, and taking the
// lock again in the same transaction costs nothing). A write the guard refuses changes
// nothing and returns no row: the caller asks user_guard.cypher why. Then, as in
// write_check.cypher, how many facts the user has until they are all in the vector index.
// Each CALL block takes one list and is a no-op for an empty one; they run in order, so
// the links see the facts created above them.
// A new fact whose text (hash) is an open fact of this user already is skipped; one whose
// id is a stored fact's is not written and comes back in `clashes` (the caller rolls
// the transaction back: ConflictError). `created` are the ids written, which the episode's
// links and the audit event name.
// A fact's vector is stored once where it is read. With hmem's plugin (the //native
// text) it is sent and kept as float32 little-endian bytes (x.packed, the property
// embedding_f32le that hmem.vector.topk reads: Neo4j keeps byte arrays as they are,
// while a float array is bit-packed and slow to read back); only a fact that goes into
// the vector index (indexed, below) also gets the float array the index covers, which
// hmem.vector.set makes from the same bytes; the others are labelled PackedVector (what
// GraphStore.unpack_vectors looks for on a server without the plugin). Without the
// plugin, plain Cypher reads x.embedding, a float list stored as float32 by
// setNodeVectorProperty (half the bytes of a plain SET), and no bytes are kept. A float
// list parameter costs the server an object per value to unpack; bytes arrive as one
// array. (_vector_once.cypher does the same for a stored fact's new vector.)
// New facts have no MENTIONS yet: CREATE (the caller sends each fact's entities once
// per canonical name).
// indexed: the user's facts go into the vector index (user_vector_index_fill.cypher):
// new ones are labelled IndexedFact, the label the index covers. A smaller user's are
// not: they are searched by the exact scan, and their commit skips the index's update.
// A fact's times are positions in $times (each distinct instant sent once: the driver
// spends ~0.1 ms converting each datetime it sends); $times[null] is null.
//include guard
WITH vector_index, vector_index IS NOT NULL AS indexed, erased_at, erasing
WHERE NOT erasing AND (erased_at IS NULL OR erased_at < $accepted)
//include facts_until_indexed
CALL () {
  // new facts whose id a stored fact has (and whose text is not an open fact's)
  UNWIND $facts AS x
  MATCH (c:Fact {user_id: $user_id, id: x.id}) USING INDEX c:Fact(user_id, id)
  WHERE NOT EXISTS { MATCH (o:Fact {user_id: $user_id, hash: x.hash}) USING INDEX o:Fact(user_id, hash)
                     WHERE o.known_to IS NULL }
  RETURN collect(x.id) AS clashes
}
CALL (indexed, clashes) {
  UNWIND CASE WHEN clashes = [] THEN $facts ELSE [] END AS x
  WITH indexed, x
  WHERE NOT EXISTS { MATCH (o:Fact {user_id: $user_id, hash: x.hash}) USING INDEX o:Fact(user_id, hash)
                     WHERE o.known_to IS NULL }
  CREATE (f:Fact {
    user_id: $user_id, user_key: $user_key, id: x.id, text: x.text, lex_len: x.lex_len, category: x.category,
    importance: x.importance, hash: x.hash,
    valid_from: $times[x.valid_from], valid_to: $times[x.valid_to],
    known_from: $times[x.known_from], known_to: null,
    belief_at: [$times[x.known_from]],
    belief_to: [coalesce($times[x.valid_to], datetime('9999-12-31T00:00:00Z'))], belief_why: [''],
    ingested_at: $now, last_used_at: null,
    corroborations: 1, source: x.source, speaker: x.speaker,
    valid_precision: x.valid_precision, valid_to_precision: x.valid_to_precision
  })
  FOREACH (_ IN CASE WHEN indexed THEN [1] ELSE [] END | SET f:IndexedFact)
  WITH f, x, indexed
  CALL (f, x, indexed) {
//plain begin
    WITH f, x WHERE x.embedding IS NOT NULL
    CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
//plain end
//native     WITH f, x, indexed WHERE x.packed IS NOT NULL
//native     SET f.embedding_f32le = x.packed
//native     FOREACH (_ IN CASE WHEN indexed THEN [] ELSE [1] END | SET f:PackedVector)
//native     WITH f, x WHERE indexed
//native     CALL hmem.vector.set(f, 'embedding', x.packed)
  }
  CALL (f, x) {
    UNWIND x.entities AS m
    MERGE (e:Entity {user_id: $user_id, canonical: m.canonical})
      ON CREATE SET e.id = m.entity_id, e.name = m.name, e.type = m.type,
                    e.aliases = m.aliases, e.created_at = $now
      ON MATCH SET e.aliases = e.aliases + [a IN m.aliases WHERE NOT a IN e.aliases]
    CREATE (f)-[:MENTIONS]->(e)
  }
  RETURN collect(f.id) AS created
}
CALL () {
  // new -[:SUPERSEDES]-> old: MERGE, so a pair never has two edges however often a
  // write names it (FactDraft dedupes a draft's targets; this holds for any caller).
  // inferred (read from the words), its cue and the old fact's score as a neighbour
  // explain a closure hmem decided itself
  UNWIND $links AS l
  MATCH (n:Fact {user_id: $user_id, id: l.new_id}) USING INDEX n:Fact(user_id, id)
  MATCH (o:Fact {user_id: $user_id, id: l.old_id}) USING INDEX o:Fact(user_id, id)
  MERGE (n)-[s:SUPERSEDES]->(o)
    ON CREATE SET s.reason = l.reason, s.at = l.at, s.relation = l.relation,
                  s.inferred = l.inferred, s.cue = l.cue, s.score = l.score
  RETURN count(*) AS linked
}
CALL () {
  // close the superseded facts in both clocks (as fact_close_many.cypher, which says how)
  UNWIND $closes AS x
  MATCH (f:Fact {user_id: $user_id, id: x.id}) USING INDEX f:Fact(user_id, id)
  WHERE f.known_to IS NULL AND last(f.belief_at) <= x.known_to
//include close
  RETURN count(f) AS closed
}
CALL () {
  // 'relates' (both stay true) or 'conflicts' (both open, unresolved)
  UNWIND $pairs AS p
  MATCH (a:Fact {user_id: $user_id, id: p.a}) USING INDEX a:Fact(user_id, id)
  MATCH (b:Fact {user_id: $user_id, id: p.b}) USING INDEX b:Fact(user_id, id)
  MERGE (a)-[r:RELATES]->(b)
    ON CREATE SET r.at = $now, r.relation = p.relation
  RETURN count(*) AS related
}
CALL () {
  UNWIND $merges AS fid
  MATCH (f:Fact {user_id: $user_id, id: fid}) USING INDEX f:Fact(user_id, id)
  SET f.corroborations = f.corroborations + 1
  RETURN count(f) AS corroborated
}
CALL (created) {
  // zero or one episode, and the facts that came from it (written now, or corroborated)
  UNWIND $episodes AS x
  MERGE (ep:Episode {user_id: $user_id, id: x.id})
    ON CREATE SET ep.session_id = x.session_id, ep.observed_at = x.observed_at,
                  ep.text = x.text, ep.redactions = x.redactions
  WITH ep, x
  UNWIND x.links AS link
  WITH ep, link WHERE link.id IN created OR link.id IN $merges
  MATCH (f:Fact {user_id: $user_id, id: link.id}) USING INDEX f:Fact(user_id, id)
  MERGE (f)-[r:FROM]->(ep)
  // turn: the fact's position in the conversation (FactDraft.turn), so "the turn
  // before / after" is one hop through the episode (search_recall.cypher)
  SET r.turn = coalesce(link.turn, r.turn)
  RETURN count(*) AS sourced
}
CALL (created) {
  // The audit names operations and ids, never memory text: the facts written, then
  // a.fact_ids (the ones closed and corroborated); no event when nothing was written.
  UNWIND $audit AS a
  WITH created, a WHERE created <> [] OR $merges <> []
  CREATE (e:AuditEvent {user_id: $user_id, id: a.id, at: a.at, op: a.op,
                        fact_ids: created + a.fact_ids, detail: a.detail})
  RETURN count(e) AS audited
}
RETURN vector_index, facts, clashes, created, linked, closed, related, corroborated, sourced,
       audited
