// params:
// Lucene over the fact text AND the owner's id: a search names the user in the query
// (user_id:"…"), so Lucene ranks that user's facts only, at any store size. The English
// analyzer stems both sides ("live" finds "lives" and "lived") and drops English stop
// words. An index made with another analyzer is dropped first (schema_fact_fulltext_drop).
CREATE FULLTEXT INDEX fact_text_user IF NOT EXISTS FOR (f:Fact) ON EACH [f.text, f.user_id]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
