// params:
// hmem's fulltext index is eventually consistent (schema_fact_fulltext.cypher): Lucene
// takes a commit's text in the background, ~10 ms later. This waits until it holds
// every transaction committed before the call (hmem.graph._driver.FulltextLag).
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
