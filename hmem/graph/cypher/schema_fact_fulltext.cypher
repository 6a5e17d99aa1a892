// params:
// Lucene over the fact text AND the owner's id: a search names the user in the query
// (user_id:"…"), so Lucene ranks that user's facts only, at any store size.
CREATE FULLTEXT INDEX fact_text_user IF NOT EXISTS FOR (f:Fact) ON EACH [f.text, f.user_id]
