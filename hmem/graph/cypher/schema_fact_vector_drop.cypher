// params:
// `hmem reembed` drops the vector index to rebuild it for another dimension, and
// apply_schema one of an older hmem, made over every Fact (schema.py).
DROP INDEX fact_embedding IF EXISTS
