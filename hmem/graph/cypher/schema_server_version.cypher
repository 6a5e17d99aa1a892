// params:
// The server's version: Neo4j 2026.02+ gets the vector index with filter properties and
// the in-index filtered SEARCH (hmem.graph.schema.filtered_search).
CALL dbms.components() YIELD name, versions
WHERE name = 'Neo4j Kernel'
RETURN versions[0] AS version
