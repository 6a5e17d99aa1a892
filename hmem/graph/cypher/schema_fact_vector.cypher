// params: dim
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}
