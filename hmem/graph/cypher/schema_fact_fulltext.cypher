// params:
// Lucene over the fact text AND the owner's exact key (user_key: one token of 39 digits,
// hmem._text.lexical_user_key, that the analyzer keeps whole): a search requires it
// (user_key:…), so Lucene finds that user's facts only, at any store size; an id's
// words never match another id that contains them (acme:7abc in evil:q-acme-7abc), as
// the user_id phrase of older stores did. The English
// analyzer stems both sides ("live" finds "lives" and "lived") and drops English stop
// words. Eventually consistent: a commit does not wait for Lucene (the index update was
// about half of a small write's commit); the text is searchable ~10 ms later, and a
// process reads its own writes (hmem.graph._driver.FulltextLag waits before its next
// search). An index made with another analyzer or consistency is dropped first
// (schema_fact_fulltext_drop).
CREATE FULLTEXT INDEX fact_text_user IF NOT EXISTS FOR (f:Fact) ON EACH [f.text, f.user_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
