// params:
// The text-only fulltext index of stores made before fact_text_user (searches no longer
// use it: it cannot filter by user).
DROP INDEX fact_text IF EXISTS
