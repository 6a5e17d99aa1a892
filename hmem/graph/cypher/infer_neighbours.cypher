// params: user_id, names, lucene, k
// Read before a plain-text write that infers changes (hmem.infer.write): this user's
// open facts that name the same entities (by canonical name) or share its words (the
// fulltext index, asked for this user's facts only as in _candidates.cypher; $lucene
// starts with the user_id phrase). The vector neighbours come from fact_neighbours.
// Scores: 1.0 for a shared entity, Lucene's (normalised by the best) for words.
CALL () {
  UNWIND $names AS name
  MATCH (e:Entity {user_id: $user_id, canonical: name}) USING INDEX e:Entity(user_id, canonical)
  MATCH (f:Fact {user_id: $user_id})-[:MENTIONS]->(e)
  WHERE f.known_to IS NULL
  RETURN f, 1.0 AS score
  UNION ALL
  WITH 1 AS go WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('fact_text_user', $lucene, {limit: $k * 3}) YIELD node, score
  WITH node AS f, score
  WHERE f.user_id = $user_id AND f.known_to IS NULL
  WITH collect({f: f, score: score}) AS hits, max(score) AS best
  UNWIND hits AS hit
  RETURN hit.f AS f, hit.score / best AS score
}
WITH f, max(score) AS score
ORDER BY score DESC, f.known_from DESC
LIMIT $k
RETURN f.id AS id, f.text AS text, f.valid_from AS valid_from, score
