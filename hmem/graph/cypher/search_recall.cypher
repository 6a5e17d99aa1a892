// params: user_id, mode, now, as_of, as_of_event, dense, vector_csv, k_dense, fetch_dense, lucene, k_lexical, fetch_lexical, entities, k_entity, w_dense, w_lexical, w_entity, keep
// The whole read path's database side in ONE round trip: the candidates of
// search_candidates.cypher (same branches, same raw scores), the first-pass hybrid score
// of hmem.recall.scoring (dense (2s - 1) clipped to 0..1, lexical and entity divided by
// the best of this search, weighted by $w_*, no recency/importance), the best $keep by
// (score DESC, id), and search_expand.cypher's one-hop walk for those. One row: `rows`
// (every candidate, raw, for the exact Python scoring; the 'size' row counts the user's
// facts) and `expanded` (the chosen facts with entities, older, newer, related).
// The caller recomputes the first pass in Python and keeps what it would have chosen.
// $vector_csv is the query vector as comma-separated decimals (Python's shortest repr,
// which toFloat parses back to the same doubles): one string instead of 384 packed
// floats, a few ms of pure-Python packing saved per search. Likewise every date-time
// comes back as ISO 8601 text (stored values are UTC offsets with microseconds, so
// datetime.fromisoformat gives back the same instant): the driver's pure-Python DateTime
// hydration was the largest client-side cost.
WITH CASE WHEN $vector_csv = '' THEN [] ELSE [x IN split($vector_csv, ',') | toFloat(x)] END AS vector
CALL (vector) {
  WITH 1 AS go WHERE $dense = 'exact'
  MATCH (f:Fact {user_id: $user_id})
  WHERE f.embedding IS NOT NULL
    AND (($mode = 'current' AND f.known_to IS NULL AND (f.valid_to IS NULL OR f.valid_to > $now))
      OR ($mode = 'history' AND (f.valid_to IS NULL OR f.valid_to > f.valid_from))
      OR ($mode = 'asof_history'
          AND ($as_of IS NULL OR f.known_from <= $as_of)
          AND ($as_of_event IS NULL OR f.valid_from <= $as_of_event))
      OR ($mode = 'asof'
          AND ($as_of IS NULL OR (f.known_from <= $as_of AND (f.known_to IS NULL OR f.known_to > $as_of)))
          AND ($as_of_event IS NULL OR (f.valid_from <= $as_of_event AND (f.valid_to IS NULL OR f.valid_to > $as_of_event)))))
  WITH f, vector.similarity.cosine(f.embedding, vector) AS score
  ORDER BY score DESC, f.id
  LIMIT $k_dense
  RETURN f.id AS id, 'dense' AS source, score
  UNION ALL
  WITH 1 AS go WHERE $dense = 'index'
  CALL db.index.vector.queryNodes('fact_embedding', $fetch_dense, vector) YIELD node, score
  WITH node AS f, score
  WHERE f.user_id = $user_id
    AND (($mode = 'current' AND f.known_to IS NULL AND (f.valid_to IS NULL OR f.valid_to > $now))
      OR ($mode = 'history' AND (f.valid_to IS NULL OR f.valid_to > f.valid_from))
      OR ($mode = 'asof_history'
          AND ($as_of IS NULL OR f.known_from <= $as_of)
          AND ($as_of_event IS NULL OR f.valid_from <= $as_of_event))
      OR ($mode = 'asof'
          AND ($as_of IS NULL OR (f.known_from <= $as_of AND (f.known_to IS NULL OR f.known_to > $as_of)))
          AND ($as_of_event IS NULL OR (f.valid_from <= $as_of_event AND (f.valid_to IS NULL OR f.valid_to > $as_of_event)))))
  WITH f, score
  ORDER BY score DESC, f.id
  LIMIT $k_dense
  RETURN f.id AS id, 'dense' AS source, score
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('fact_text', $lucene, {limit: $fetch_lexical}) YIELD node, score
  WITH node AS f, score
  WHERE f.user_id = $user_id
    AND (($mode = 'current' AND f.known_to IS NULL AND (f.valid_to IS NULL OR f.valid_to > $now))
      OR ($mode = 'history' AND (f.valid_to IS NULL OR f.valid_to > f.valid_from))
      OR ($mode = 'asof_history'
          AND ($as_of IS NULL OR f.known_from <= $as_of)
          AND ($as_of_event IS NULL OR f.valid_from <= $as_of_event))
      OR ($mode = 'asof'
          AND ($as_of IS NULL OR (f.known_from <= $as_of AND (f.known_to IS NULL OR f.known_to > $as_of)))
          AND ($as_of_event IS NULL OR (f.valid_from <= $as_of_event AND (f.valid_to IS NULL OR f.valid_to > $as_of_event)))))
  WITH f, score
  ORDER BY score DESC, f.id
  LIMIT $k_lexical
  RETURN f.id AS id, 'lexical' AS source, score
  UNION ALL
  WITH 1 AS go WHERE size($entities) > 0
  MATCH (e:Entity {user_id: $user_id})
  WHERE e.canonical IN $entities OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) IN $entities)
  MATCH (f:Fact {user_id: $user_id})-[:MENTIONS]->(e)
  WHERE (($mode = 'current' AND f.known_to IS NULL AND (f.valid_to IS NULL OR f.valid_to > $now))
      OR ($mode = 'history' AND (f.valid_to IS NULL OR f.valid_to > f.valid_from))
      OR ($mode = 'asof_history'
          AND ($as_of IS NULL OR f.known_from <= $as_of)
          AND ($as_of_event IS NULL OR f.valid_from <= $as_of_event))
      OR ($mode = 'asof'
          AND ($as_of IS NULL OR (f.known_from <= $as_of AND (f.known_to IS NULL OR f.known_to > $as_of)))
          AND ($as_of_event IS NULL OR (f.valid_from <= $as_of_event AND (f.valid_to IS NULL OR f.valid_to > $as_of_event)))))
  WITH f, count(DISTINCT e) AS matched
  ORDER BY matched DESC, f.known_from DESC, f.id
  LIMIT $k_entity
  RETURN f.id AS id, 'entity' AS source, toFloat(matched) AS score
  UNION ALL
  MATCH (f:Fact {user_id: $user_id})
  RETURN '' AS id, 'size' AS source, toFloat(count(f)) AS score
}
WITH collect({id: id, source: source, score: score}) AS rows
WITH rows,
     reduce(m = 0.0, r IN rows | CASE WHEN r.source = 'lexical' AND r.score > m THEN r.score ELSE m END) AS best_lexical,
     reduce(m = 0.0, r IN rows | CASE WHEN r.source = 'entity' AND r.score > m THEN r.score ELSE m END) AS best_entity
CALL (rows, best_lexical, best_entity) {
  UNWIND [r IN rows WHERE r.source <> 'size'] AS r
  WITH r.id AS fid,
       max(CASE WHEN r.source <> 'dense' THEN 0.0
                WHEN 2.0 * r.score - 1.0 < 0.0 THEN 0.0
                WHEN 2.0 * r.score - 1.0 > 1.0 THEN 1.0
                ELSE 2.0 * r.score - 1.0 END) AS d,
       max(CASE WHEN r.source = 'lexical' AND best_lexical > 0.0 THEN r.score / best_lexical ELSE 0.0 END) AS l,
       max(CASE WHEN r.source = 'entity' AND best_entity > 0.0 THEN r.score / best_entity ELSE 0.0 END) AS e
  WITH fid, $w_dense * d + $w_lexical * l + $w_entity * e AS first
  ORDER BY first DESC, fid
  LIMIT $keep
  MATCH (f:Fact {user_id: $user_id, id: fid})
  CALL (f) {
    OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
    RETURN collect(e.name) AS entities
  }
  CALL (f) {
    OPTIONAL MATCH (f)-[r:SUPERSEDES]->(p:Fact {user_id: $user_id})
    RETURN collect(CASE WHEN p IS NULL THEN null ELSE {
      fact: p {.id, .user_id, .text, .category, .importance, .hash, .corroborations, .source, .close_reason, valid_from: toString(p.valid_from), valid_to: toString(p.valid_to), known_from: toString(p.known_from), known_to: toString(p.known_to), ingested_at: toString(p.ingested_at), last_used_at: toString(p.last_used_at)},
      new_id: f.id, old_id: p.id, reason: r.reason, at: toString(r.at), relation: r.relation} END) AS older
  }
  CALL (f) {
    OPTIONAL MATCH (s:Fact {user_id: $user_id})-[r:SUPERSEDES]->(f)
    RETURN collect(CASE WHEN s IS NULL THEN null ELSE {
      fact: s {.id, .user_id, .text, .category, .importance, .hash, .corroborations, .source, .close_reason, valid_from: toString(s.valid_from), valid_to: toString(s.valid_to), known_from: toString(s.known_from), known_to: toString(s.known_to), ingested_at: toString(s.ingested_at), last_used_at: toString(s.last_used_at)},
      new_id: s.id, old_id: f.id, reason: r.reason, at: toString(r.at), relation: r.relation} END) AS newer
  }
  CALL (f) {
    OPTIONAL MATCH (f)-[r:RELATES]-(o:Fact {user_id: $user_id})
    RETURN collect(CASE WHEN o IS NULL THEN null ELSE {id: o.id, relation: r.relation} END) AS related
  }
  RETURN collect({
    fact: f {.id, .user_id, .text, .category, .importance, .hash, .corroborations, .source, .close_reason, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to), known_from: toString(f.known_from), known_to: toString(f.known_to), ingested_at: toString(f.ingested_at), last_used_at: toString(f.last_used_at)},
    entities: entities, older: older, newer: newer, related: related}) AS expanded
}
RETURN rows, expanded
