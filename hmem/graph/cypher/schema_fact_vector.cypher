// params: dim
// On Neo4j 2026.02+ (the Cypher 25 text) the index also holds user_id as a filter
// property, so `SEARCH ... WHERE f.user_id = $user_id` filters inside the index
// (search_recall.cypher's 'search' branch) instead of after a global top-k.
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding
//cypher25 begin
WITH [f.user_id]
//cypher25 end
OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}
