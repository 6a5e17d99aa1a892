// params:
CREATE CONSTRAINT embedding_model_key IF NOT EXISTS FOR (m:EmbeddingModel) REQUIRE m.key IS UNIQUE
