// Fragment (//include candidates): the read path's candidate sources over ONE user's
// facts, a CALL returning rows (id: the fact node, or null for 'size'; source; score).
// Included by search_candidates.cypher and search_recall.cypher (hmem.graph.catalog).
// dense: 'exact' scans the user's own facts (through the fact_user index): exact, and
// can never see another user's fact. 'index' asks the global HNSW index for
// $fetch_dense neighbours and keeps this user's: the 5.26 index cannot filter by user
// inside the index, so the caller falls back to 'exact' when it returns fewer than
// $k_dense. 'search' (Neo4j 2026.02+) filters by user inside the index. 'none' skips.
// lexical: BM25 with THIS user's statistics. The fulltext index fact_text_user (text and
// user_key, the user's exact key: one untokenised term) only finds facts: one query per
// term ($lucene_prefix requires the user_key term, then text:(term)), so Lucene returns
// this user's facts alone and $fetch_term counts them only; user_id = $user_id is
// checked again exactly; Lucene's scores are
// never used, because its idf and length norms count every user's facts (and deleted
// ones until a merge): another tenant's words moved a user's ranking, even after that
// tenant was erased. The terms: $lucene_terms (the question's content words) and each
// of $lucene_names (its names), weighted by how few of the user's facts the entity it is
// a word of mentions: 1 - share / $entity_max_share, and left out above that share (a
// chat's speakers: every fact says "Caroline", so the word only adds noise; "Paris" or a
// dog's name tells facts apart). The names alone, unweighted, when nothing else is left
// ("Who is Maya?"). A term's document frequency is the number of the user's facts it
// finds, N the user's facts (counted up to $size_cap, never below that frequency); a
// term whose fetch reaches $fetch_term (its idf would be small) is left out, so a cut
// fetch, ordered by Lucene's global statistics, never chooses which facts score. A fact scores the sum of its terms'
// weight x idf, times BM25's length part with tf 1 (k1 1.2, b 0.75; the length in words
// but $stop_words, Lucene's English ones, as its analyzer counts, kept on the fact since
// its write (lex_len), over the mean length of the facts the terms found: short facts
// are stated, not said in passing).
// entity: the facts that mention the question's entities, most matched first, then the
// newest. An entity that more than $entity_max_share of the user's facts mention (the
// two speakers of a chat: every turn names one) tells nothing apart and is left out:
// its candidates were only the newest of its facts. So is one more than
// $entity_max_facts facts mention: walking all its mentions is what a big user's
// search paid most for (COUNT of one relationship type is the node's stored degree).
// Scores are raw: cosine as (1 + cos) / 2, the user's BM25, and the number of matched entities.
// 'named' (kept beside the rows): the user's entities the question names, by canonical
// name or alias, found once (search_recall.cypher also matches turns' speakers by them).
// The share's denominator: the user's facts counted up to $size_cap. 'size': the same
// count once all of them are in the vector index (the user's root says 'ready'), else 0:
// the caller picks the next search's strategy by it (the index strategies only for a
// user the index holds; no more than the threshold is needed).
CALL () {
  MATCH (f:Fact {user_id: $user_id})
  WITH f LIMIT $size_cap
  RETURN count(f) AS facts
}
CALL () {
  // Two parts, not one OR: the OR tested every entity of the user against every gram
  // (7 ms for a user of 2,600 entities); a canonical name is sought in the index.
  CALL () {
    WITH 1 AS go WHERE size($entities) > 0
    MATCH (e:Entity {user_id: $user_id}) WHERE e.canonical IN $entities RETURN e
    UNION
    WITH 1 AS go WHERE size($entities) > 0
    MATCH (e:Entity {user_id: $user_id})
    WHERE any(a IN coalesce(e.aliases, []) WHERE toLower(a) IN $entities)
    RETURN e
  }
  RETURN collect(e) AS named
}
CALL (facts, named) {
  WITH [e IN named | {
         words: split(e.canonical, ' ')
                + reduce(more = [], a IN coalesce(e.aliases, []) | more + split(toLower(a), ' ')),
         share: toFloat(COUNT { (e)<-[:MENTIONS]-() }) / CASE WHEN facts > 0 THEN facts ELSE 1 END
       }] AS shares
  WITH [n IN $lucene_names | {
         term: n,
         share: reduce(most = 0.0, s IN shares | CASE WHEN n IN s.words AND s.share > most THEN s.share ELSE most END)
       }] AS names
  WITH [n IN names WHERE n.share <= $entity_max_share |
        {term: n.term, weight: CASE WHEN n.share = 0.0 THEN 1.0
                                    ELSE 1.0 - n.share / $entity_max_share END}] AS names
  RETURN CASE WHEN $lucene_terms <> [] THEN [t IN $lucene_terms | {term: t, weight: 1.0}] + names
              WHEN names <> [] THEN names
              ELSE [n IN $lucene_names | {term: n, weight: 1.0}] END AS terms
}
CALL () {
  OPTIONAL MATCH (u:User {user_id: $user_id})
  RETURN coalesce(u.vector_index = 'ready', false) AS indexed
}
CALL (facts, named, indexed, terms) {
  WITH 1 AS go WHERE $dense = 'exact'
  MATCH (f:Fact {user_id: $user_id})
  WHERE (f.embedding_f32le IS NOT NULL OR f.embedding IS NOT NULL)
    AND
    //include in_view
  // The same top $k_dense: one call of hmem's procedure, or plain Cypher without it.
  //native WITH collect(f) AS fs
  //native CALL hmem.vector.topk(fs, ['embedding_f32le', 'embedding'], $vector, $k_dense)
  //native   YIELD node AS f, score
  //plain begin
  // A stored vector cosine cannot use (zeros, NaN, Infinity, overflow) is skipped, as
  // the procedure does: vector.similarity.cosine would fail the whole statement.
  WITH f, reduce(sq = 0.0, x IN f.embedding | sq + x * x) AS sq
  WHERE sq > 0.0 AND sq < 1.0 / 0.0
  WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
  ORDER BY score DESC, f.id
  LIMIT $k_dense
  //plain end
  RETURN f AS id, 'dense' AS source, score
  UNION ALL
  WITH 1 AS go WHERE $dense = 'index'
  CALL db.index.vector.queryNodes('fact_embedding', $fetch_dense, $vector) YIELD node, score
  WITH node AS f, score
  WHERE f.user_id = $user_id
    AND
    //include in_view
  WITH f, score
  ORDER BY score DESC, f.id
  LIMIT $k_dense
  RETURN f AS id, 'dense' AS source, score
  //cypher25 begin
  // Neo4j 2026.02+: the vector index filters by user inside the search (user_id is a
  // filter property of fact_embedding), so the $fetch_search best of THIS user come
  // back; time is filtered after it (the caller falls back to the exact scan when
  // fewer than $k_dense remain).
  UNION ALL
  WITH 1 AS go WHERE $dense = 'search'
  MATCH (f:Fact {user_id: $user_id})
    SEARCH f IN (VECTOR INDEX fact_embedding FOR $vector WHERE f.user_id = $user_id LIMIT $fetch_search) SCORE AS score
  WITH f, score
  WHERE
  //include in_view
  WITH f, score
  ORDER BY score DESC, f.id
  LIMIT $k_dense
  RETURN f AS id, 'dense' AS source, score
  //cypher25 end
  UNION ALL
  WITH facts, terms WHERE terms <> []
  UNWIND terms AS t
  CALL (t) {
    CALL db.index.fulltext.queryNodes('fact_text_user', $lucene_prefix + '(' + t.term + ')',
                                      {limit: $fetch_term}) YIELD node
    RETURN collect(node) AS found
  }
  WITH facts, t, found WHERE size(found) < $fetch_term
  WITH facts, t, [f IN found WHERE f.user_id = $user_id] AS mine
  WITH facts, t, mine, size(mine) AS df
  WHERE df > 0
  WITH mine, t.weight * log(1.0 + (CASE WHEN facts > df THEN facts ELSE df END - df + 0.5) / (df + 0.5)) AS idf
  UNWIND mine AS f
  WITH f, sum(idf) AS idf
  // the length stored at write (hmem._text.lexical_length), counted here only for a
  // fact written before it was stored: counting every found fact's words was most of a
  // 20,000-fact user's search (python -m hmem.bench.lexical_big)
  WITH f, idf, toFloat(coalesce(f.lex_len, size([w IN split(toLower(f.text), ' ') WHERE w <> '' AND NOT w IN $stop_words]))) AS dl
  WITH collect([f, idf, dl]) AS found, avg(dl) AS mean
  UNWIND found AS d
  WITH d[0] AS f,
       d[1] * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * CASE WHEN mean > 0.0 THEN d[2] / mean ELSE 1.0 END)) AS score
  WHERE
  //include in_view
  WITH f, score
  ORDER BY score DESC, f.id
  LIMIT $k_lexical
  RETURN f AS id, 'lexical' AS source, score
  UNION ALL
  WITH facts, named WHERE size(named) > 0
  UNWIND named AS e
  WITH e, facts, COUNT { (e)<-[:MENTIONS]-() } AS mentions
  WHERE mentions <= $entity_max_facts AND mentions <= $entity_max_share * facts
  MATCH (f:Fact {user_id: $user_id})-[:MENTIONS]->(e)
  WHERE
  //include in_view
  WITH f, count(DISTINCT e) AS matched
  ORDER BY matched DESC, f.known_from DESC, f.id
  LIMIT $k_entity
  RETURN f AS id, 'entity' AS source, toFloat(matched) AS score
  UNION ALL
  RETURN null AS id, 'size' AS source, toFloat(CASE WHEN indexed THEN facts ELSE 0 END) AS score
}

