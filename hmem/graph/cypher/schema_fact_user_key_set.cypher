// params: user_id, user_key
// One user's facts without their fulltext user key get it (hmem._text.lexical_user_key).
MATCH (f:Fact {user_id: $user_id}) WHERE f.user_key IS NULL
SET f.user_key = $user_key
RETURN count(f) AS keyed
