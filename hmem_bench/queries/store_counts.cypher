// params:
// Whole-database counts (from the count store): facts, nodes, relationships.
MATCH (f:Fact) WITH count(f) AS facts
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS rels }
RETURN facts, nodes, rels
