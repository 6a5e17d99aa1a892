// params: dim
// The index covers the label IndexedFact, which only the facts of users big enough to
// need it carry (user_vector_index_fill.cypher): a smaller user is searched by the
// exact scan, and writing its facts skips the index's update at commit.
// On Neo4j 2026.02+ (the Cypher 25 text) the index also holds user_id as a filter
// property, so `SEARCH ... WHERE f.user_id = $user_id` filters inside the index
// (search_recall.cypher's 'search' branch) instead of after a global top-k.
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:IndexedFact) ON f.embedding
//cypher25 begin
WITH [f.user_id]
//cypher25 end
OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}
