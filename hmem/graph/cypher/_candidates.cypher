// Fragment (//include candidates): the read path's candidate sources over ONE user's
// facts, a CALL returning rows (id: the fact node, or null for 'size'; source; score).
// Included by search_candidates.cypher and search_recall.cypher (hmem.graph.catalog).
// dense: 'exact' scans the user's own facts (through the fact_user index): exact, and
// can never see another user's fact. 'index' asks the global HNSW index for
// $fetch_dense neighbours and keeps this user's: the 5.26 index cannot filter by user
// inside the index, so the caller falls back to 'exact' when it returns fewer than
// $k_dense. 'search' (Neo4j 2026.02+) filters by user inside the index. 'none' skips.
// lexical: the fulltext index fact_text_user (text and user_id) is asked for this
// user's facts only ($lucene_prefix requires the user_id phrase, boosted 0 so Lucene's
// BM25 scores the text alone); user_id = $user_id is checked exactly after. The terms:
// $lucene (the question's content words, OR-ed) and each of $lucene_names (its names),
// boosted by how few of the user's facts the entity it is a word of mentions: 1 - share
// / $entity_max_share, and left out above that share (a chat's speakers: every fact
// says "Caroline", so the word only adds noise; "Paris" or a dog's name tells facts
// apart). Lucene's own idf cannot tell: it counts the whole index, every user's facts.
// The names alone, unboosted, when nothing else is left ("Who is Maya?").
// entity: the facts that mention the question's entities, most matched first, then the
// newest. An entity that more than $entity_max_share of the user's facts mention (the
// two speakers of a chat: every turn names one) tells nothing apart and is left out:
// its candidates were only the newest of its facts. So is one more than
// $entity_max_facts facts mention: walking all its mentions is what a big user's
// search paid most for (COUNT of one relationship type is the node's stored degree).
// Scores are raw: cosine as (1 + cos) / 2, Lucene's, and the number of matched entities.
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
  // The boost goes into the query text: three decimals (Lucene's boost takes no
  // exponent, and 0.0002 prints as 2.0E-4), and 1 for a name no entity of the user has
  // (not 0 / 0 when $entity_max_share is 0).
  WITH [n IN names WHERE n.share <= $entity_max_share |
        n.term + '^' + toString(CASE WHEN n.share = 0.0 THEN 1.0
                                     ELSE round(1.0 - n.share / $entity_max_share, 3) END)] AS names
  WITH CASE WHEN $lucene IS NOT NULL THEN [$lucene] + names
            WHEN names <> [] THEN names
            ELSE $lucene_names END AS terms
  RETURN CASE WHEN terms = [] THEN null
              ELSE $lucene_prefix + '(' + reduce(q = head(terms), t IN tail(terms) | q + ' OR ' + t) + ')'
         END AS lucene
}
CALL () {
  OPTIONAL MATCH (u:User {user_id: $user_id})
  RETURN coalesce(u.vector_index = 'ready', false) AS indexed
}
CALL (facts, named, indexed, lucene) {
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
  WITH lucene WHERE lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('fact_text_user', lucene, {limit: $fetch_lexical}) YIELD node, score
  WITH node AS f, score
  WHERE f.user_id = $user_id
    AND
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

