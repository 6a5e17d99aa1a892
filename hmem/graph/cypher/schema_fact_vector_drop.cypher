// params:
// Only `hmem reembed` drops the vector index, to rebuild it for another dimension.
DROP INDEX fact_embedding IF EXISTS
