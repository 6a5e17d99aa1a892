// params:
// Lucene over the fact text AND the owner's id: a search names the user in the query
// (user_id:"…"), so Lucene ranks that user's facts only, at any store size. The English
// analyzer stems both sides ("live" finds "lives" and "lived") and drops English stop
// words. Eventually consistent: a commit does not wait for Lucene (the index update was
// about half of a small write's commit); the text is searchable ~10 ms later, and a
// process reads its own writes (hmem.graph._driver.FulltextLag waits before its next
// search). An index made with another analyzer or consistency is dropped first
// (schema_fact_fulltext_drop).
CREATE FULLTEXT INDEX fact_text_user IF NOT EXISTS FOR (f:Fact) ON EACH [f.text, f.user_id]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
