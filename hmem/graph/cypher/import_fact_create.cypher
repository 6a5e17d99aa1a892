// params: user_id, user_key, indexed, facts
// Facts brought from another memory with both windows as they were there: a closed
// one arrives closed (known_to, close_reason). The caller skips ids already stored.
// The belief history is built from that state, unless the fact brings its own.
// $indexed: the user's facts go into the vector index (as in write_apply.cypher).
UNWIND $facts AS x
CREATE (f:Fact {
  user_id: $user_id, user_key: $user_key, id: x.id, text: x.text, lex_len: x.lex_len, category: x.category,
  importance: x.importance, hash: x.hash,
  valid_from: x.valid_from, valid_to: x.valid_to,
  known_from: x.known_from, known_to: x.known_to, close_reason: x.close_reason,
  ingested_at: x.ingested_at, last_used_at: null,
  corroborations: 1, source: x.source, speaker: x.speaker
})
FOREACH (_ IN CASE WHEN $indexed THEN [1] ELSE [] END | SET f:IndexedFact)
WITH f, x
//include belief_from_state
// an export of hmem carries the belief history itself (x.belief_at not null): kept as
// it was, and with it the end a restore gives back (valid_to_before_close)
WITH f, x
FOREACH (_ IN CASE WHEN x.belief_at IS NULL THEN [] ELSE [1] END |
  SET f.belief_at = x.belief_at, f.belief_to = x.belief_to, f.belief_why = x.belief_why,
      f.valid_to_before_close = x.valid_to_before_close)
RETURN count(f) AS created
