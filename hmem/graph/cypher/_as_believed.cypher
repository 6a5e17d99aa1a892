// Fragment (//include as_believed): fact f as a map, as it was believed at the belief
// time the statement looks from. `unseen` (bound by the statement: f was closed after
// that time, `f.known_to > $believed_at`) hides what was learned later: the close's
// known_to and reason, and the valid_to it set (the fact shows the end it had before,
// valid_to_before_close, usually none). Same field order as every other fact map.
f {.id, .user_id, .text, .category, .importance, .hash, .valid_from,
   valid_to: CASE WHEN unseen THEN f.valid_to_before_close ELSE f.valid_to END,
   .known_from,
   known_to: CASE WHEN unseen THEN null ELSE f.known_to END,
   .ingested_at, .last_used_at, .corroborations, .source, .speaker,
   close_reason: CASE WHEN unseen THEN null ELSE f.close_reason END,
   .valid_precision,
   valid_to_precision: CASE WHEN unseen THEN null ELSE f.valid_to_precision END}
