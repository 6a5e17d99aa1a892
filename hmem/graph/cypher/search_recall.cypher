// params: user_id, mode, now, as_of, as_of_event, dense, vector, k_dense, fetch_dense, fetch_search, lucene_prefix, lucene_terms, lucene_names, k_lexical, fetch_term, stop_words, entities, k_entity, entity_max_facts, entity_max_share, size_cap, w_dense, w_lexical, w_entity, w_session, w_adjacent, w_time, w_speaker, window_from, window_to, seeds, keep
// The whole read path's database side in ONE round trip: the candidates (the
// fragment _candidates.cypher, as search_candidates.cypher returns them), the first-pass
// hybrid score of hmem.recall.scoring (dense (2s - 1) clipped to 0..1, lexical and
// entity divided by the best of this search, time 0 or 1, weighted by $w_*, no
// recency/importance), the graph step, the best $keep by the full score (the first
// pass's signals, session, adjacent and speaker, 0 or 1) (score DESC, id), and search_expand.cypher's one-hop walk for those. Candidates carry
// their nodes to the expansion (no second index seek per chosen id). One row: `rows`
// (one per candidate: its id and raw signals, for the final scoring in Python), `size`
// (the user's facts, see the fragment) and `expanded` (the chosen facts with entities,
// older, newer, related). Facts come as lists in hmem.graph.search's _FACT_FIELDS
// order: the driver decodes every map key of every row in pure Python.
// This score is the only one that chooses what is expanded: the caller takes the choice
// as it is (hmem.recall.engine), and scores only the chosen.
// lexical: BM25 over this user's facts with this user's statistics (the fragment):
// Lucene only finds the facts (the user's exact key, one term, in the user_key field of
// fact_text_user, then user_id = $user_id checked exactly); its scores, whose idf and
// length norms count every user's facts, are never used.
// $vector is a plain list of floats (hmem.graph.catalog gives list parameters a short
// repr: the driver formats every parameter for its DEBUG log even when that log is off,
// which for 384 floats cost more than packing them). Every date-time comes back as
// ISO 8601 text (stored values are UTC offsets with microseconds, so
// datetime.fromisoformat gives back the same instant): the driver's pure-Python DateTime
// hydration was the largest client-side cost.
//include candidates
// The names the question gives: its grams ($entities, folded) and the canonical names of
// the entities it names by an alias ('named', from the fragment).
WITH [e IN named | e.canonical] + $entities AS names, collect([id, source, score]) AS cand
// The span of time the question names ([$window_from, $window_to), or null): a fact
// that began in it gets 'time' 1.0 (hmem.recall.query.time_window). A turn said by a
// person the question names (f.speaker, folded like entity names) gets 'speaker' 1.0.
WITH names, cand
     + [r IN cand WHERE r[1] <> 'size' AND r[0].valid_from >= $window_from
        AND r[0].valid_from < $window_to | [r[0], 'time', 1.0]]
     + [r IN cand WHERE r[1] <> 'size' AND r[0].speaker IN names | [r[0], 'speaker', 1.0]] AS cand
WITH names, cand,
     reduce(m = 0.0, r IN cand | CASE WHEN r[1] = 'lexical' AND r[2] > m THEN r[2] ELSE m END) AS best_lexical,
     reduce(m = 0.0, r IN cand | CASE WHEN r[1] = 'entity' AND r[2] > m THEN r[2] ELSE m END) AS best_entity
// The first pass: dense (2s - 1) clipped to 0..1, lexical and entity divided by the
// best of this search, time as it is, weighted; the best $seeds of it seed the graph
// step. Not the speaker: a seed hands its first-pass score to its whole session and
// the turns next to it (both speakers'), which cost LoCoMo's dev split R@10 0.787 ->
// 0.780 at weight 0.08 (docs/retrieval.md); the speaker counts in the final score.
CALL (cand, best_lexical, best_entity) {
  UNWIND [r IN cand WHERE r[1] <> 'size'] AS r
  WITH r[0] AS f,
       max(CASE WHEN r[1] <> 'dense' THEN 0.0
                WHEN 2.0 * r[2] - 1.0 < 0.0 THEN 0.0
                WHEN 2.0 * r[2] - 1.0 > 1.0 THEN 1.0
                ELSE 2.0 * r[2] - 1.0 END) AS d,
       max(CASE WHEN r[1] = 'lexical' AND best_lexical > 0.0 THEN r[2] / best_lexical ELSE 0.0 END) AS l,
       max(CASE WHEN r[1] = 'entity' AND best_entity > 0.0 THEN r[2] / best_entity ELSE 0.0 END) AS e,
       max(CASE WHEN r[1] = 'time' THEN r[2] ELSE 0.0 END) AS t
  WITH f, $w_dense * d + $w_lexical * l + $w_entity * e + $w_time * t AS first
  ORDER BY first DESC, f.id
  LIMIT $seeds
  RETURN collect([f, first]) AS seeds
}
// The graph step: a seed's episode (the session it came from) is a group scored by its
// best member: every fact of it in view gets 'session' = the best seed's first-pass
// score there, and the turns next to a seed (FROM.turn one apart) get 'adjacent' = the
// seed's. Facts brought in this way that were not candidates get their dense score here.
CALL (seeds) {
  UNWIND seeds AS s
  WITH s[0] AS seed, s[1] AS first
  // Two MATCH clauses, not one pattern: the seed is a member of its own group (one
  // pattern would never use the same FROM edge twice).
  MATCH (seed)-[a:FROM]->(ep:Episode {user_id: $user_id})
  MATCH (ep)<-[b:FROM]-(f:Fact {user_id: $user_id})
  WHERE
  //include in_view
  WITH f, max(first) AS session,
       max(CASE WHEN abs(a.turn - b.turn) = 1 THEN first ELSE 0.0 END) AS adjacent
  WITH collect([f, 'session', session]) + [m IN collect([f, 'adjacent', adjacent]) WHERE m[2] > 0.0]
       + [m IN collect(f) WHERE m.valid_from >= $window_from AND m.valid_from < $window_to | [m, 'time', 1.0]] AS mates,
       CASE WHEN size($vector) = 0 THEN [] ELSE collect(f) END AS members
  // Their dense scores, as the exact scan scores them (_candidates.cypher): one call
  // of hmem's procedure, or plain Cypher without it; a vector cosine cannot use is
  // skipped.
  CALL (members) {
    //native CALL hmem.vector.topk(members, ['embedding_f32le', 'embedding'], $vector, size(members))
    //native   YIELD node, score
    //native RETURN collect([node, 'dense', score]) AS dense
    //plain begin
    UNWIND members AS f
    WITH f, reduce(sq = 0.0, x IN f.embedding | sq + x * x) AS sq
    WHERE size(f.embedding) = size($vector) AND sq > 0.0 AND sq < 1.0 / 0.0
    RETURN collect([f, 'dense', vector.similarity.cosine(f.embedding, $vector)]) AS dense
    //plain end
  }
  RETURN mates + dense AS mates
}
// Every fact the graph step brought has a 'session' row: those said by a named person
// get 'speaker' too.
WITH cand + mates + [m IN mates WHERE m[1] = 'session' AND m[0].speaker IN names
                     | [m[0], 'speaker', 1.0]] AS cand, best_lexical, best_entity
// One row per candidate: its id and its raw signals, the best of each source or null
// ([id, dense, lexical, entity, session, adjacent, time, speaker]); 'size' apart.
CALL (cand) {
  UNWIND [r IN cand WHERE r[1] <> 'size'] AS r
  WITH r[0] AS f,
       max(CASE WHEN r[1] = 'dense' THEN r[2] END) AS d,
       max(CASE WHEN r[1] = 'lexical' THEN r[2] END) AS l,
       max(CASE WHEN r[1] = 'entity' THEN r[2] END) AS e,
       max(CASE WHEN r[1] = 'session' THEN r[2] END) AS s,
       max(CASE WHEN r[1] = 'adjacent' THEN r[2] END) AS a,
       max(CASE WHEN r[1] = 'time' THEN r[2] END) AS t,
       max(CASE WHEN r[1] = 'speaker' THEN r[2] END) AS sp
  RETURN collect([f.id, d, l, e, s, a, t, sp]) AS rows
}
WITH cand, best_lexical, best_entity, rows,
     reduce(n = 0.0, r IN cand | CASE WHEN r[1] = 'size' THEN r[2] ELSE n END) AS size
CALL (cand, best_lexical, best_entity) {
  UNWIND [r IN cand WHERE r[1] <> 'size'] AS r
  WITH r[0] AS f,
       max(CASE WHEN r[1] <> 'dense' THEN 0.0
                WHEN 2.0 * r[2] - 1.0 < 0.0 THEN 0.0
                WHEN 2.0 * r[2] - 1.0 > 1.0 THEN 1.0
                ELSE 2.0 * r[2] - 1.0 END) AS d,
       max(CASE WHEN r[1] = 'lexical' AND best_lexical > 0.0 THEN r[2] / best_lexical ELSE 0.0 END) AS l,
       max(CASE WHEN r[1] = 'entity' AND best_entity > 0.0 THEN r[2] / best_entity ELSE 0.0 END) AS e,
       max(CASE WHEN r[1] = 'session' THEN r[2] ELSE 0.0 END) AS s,
       max(CASE WHEN r[1] = 'adjacent' THEN r[2] ELSE 0.0 END) AS a,
       max(CASE WHEN r[1] = 'time' THEN r[2] ELSE 0.0 END) AS t,
       max(CASE WHEN r[1] = 'speaker' THEN r[2] ELSE 0.0 END) AS sp
  WITH f, $w_dense * d + $w_lexical * l + $w_entity * e + $w_session * s + $w_adjacent * a
          + $w_time * t + $w_speaker * sp AS score
  ORDER BY score DESC, f.id
  LIMIT $keep
  // Each fact, and its links, as believed at $as_of when there is one: each fact from
  // its belief history entry in force then (v, as _version.cypher; _as_believed.cypher's
  // fields), so a close learned later is not shown, nor a successor or predecessor.
  WITH f,
       [(f)-[:MENTIONS]->(e:Entity {user_id: $user_id}) | e.name] AS entities,
       [(f)-[r:SUPERSEDES]->(p:Fact {user_id: $user_id})
        WHERE CASE WHEN $as_of IS NULL THEN r.undone_at IS NULL ELSE r.at <= $as_of AND p.known_from <= $as_of AND (r.undone_at IS NULL OR r.undone_at > $as_of) END | {
         fact: head([v IN [CASE WHEN $as_of IS NULL THEN null ELSE last([i IN range(0, size(p.belief_at) - 1) WHERE p.belief_at[i] <= $as_of]) END] | [p.id, p.user_id, p.text, p.category, p.importance, p.hash, p.corroborations, p.source, p.speaker, CASE WHEN v IS NULL THEN p.close_reason WHEN p.belief_why[v] = '' THEN null ELSE p.belief_why[v] END, toString(p.valid_from), toString(CASE WHEN v IS NULL THEN p.valid_to WHEN p.belief_to[v] = datetime('9999-12-31T00:00:00Z') THEN null ELSE p.belief_to[v] END), toString(p.known_from), toString(CASE WHEN v IS NULL THEN p.known_to WHEN p.belief_why[v] = '' THEN null ELSE p.belief_at[v] END), toString(p.ingested_at), toString(p.last_used_at)]]),
         new_id: f.id, old_id: p.id, reason: r.reason, at: toString(r.at), relation: r.relation}] AS older,
       [(s:Fact {user_id: $user_id})-[r:SUPERSEDES]->(f)
        WHERE CASE WHEN $as_of IS NULL THEN r.undone_at IS NULL ELSE r.at <= $as_of AND s.known_from <= $as_of AND (r.undone_at IS NULL OR r.undone_at > $as_of) END | {
         fact: head([v IN [CASE WHEN $as_of IS NULL THEN null ELSE last([i IN range(0, size(s.belief_at) - 1) WHERE s.belief_at[i] <= $as_of]) END] | [s.id, s.user_id, s.text, s.category, s.importance, s.hash, s.corroborations, s.source, s.speaker, CASE WHEN v IS NULL THEN s.close_reason WHEN s.belief_why[v] = '' THEN null ELSE s.belief_why[v] END, toString(s.valid_from), toString(CASE WHEN v IS NULL THEN s.valid_to WHEN s.belief_to[v] = datetime('9999-12-31T00:00:00Z') THEN null ELSE s.belief_to[v] END), toString(s.known_from), toString(CASE WHEN v IS NULL THEN s.known_to WHEN s.belief_why[v] = '' THEN null ELSE s.belief_at[v] END), toString(s.ingested_at), toString(s.last_used_at)]]),
         new_id: s.id, old_id: f.id, reason: r.reason, at: toString(r.at), relation: r.relation}] AS newer,
       [(f)-[r:RELATES]-(o:Fact {user_id: $user_id}) | {id: o.id, relation: r.relation}] AS related
  RETURN collect({
    fact: head([v IN [CASE WHEN $as_of IS NULL THEN null ELSE last([i IN range(0, size(f.belief_at) - 1) WHERE f.belief_at[i] <= $as_of]) END] | [f.id, f.user_id, f.text, f.category, f.importance, f.hash, f.corroborations, f.source, f.speaker, CASE WHEN v IS NULL THEN f.close_reason WHEN f.belief_why[v] = '' THEN null ELSE f.belief_why[v] END, toString(f.valid_from), toString(CASE WHEN v IS NULL THEN f.valid_to WHEN f.belief_to[v] = datetime('9999-12-31T00:00:00Z') THEN null ELSE f.belief_to[v] END), toString(f.known_from), toString(CASE WHEN v IS NULL THEN f.known_to WHEN f.belief_why[v] = '' THEN null ELSE f.belief_at[v] END), toString(f.ingested_at), toString(f.last_used_at)]]),
    entities: entities, older: older, newer: newer, related: related}) AS expanded
}
RETURN rows, size, expanded
