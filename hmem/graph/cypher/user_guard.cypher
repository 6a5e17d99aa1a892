// params: user_id, user_ref, now
// The first statement of every write transaction. Writing the user's root takes its
// lock until commit, so a write and an erasure (user_erase_begin writes the same node)
// never interleave; the user's erasure markers then say whether this write may land.
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.created_at = $now
SET u.written_at = $now
WITH u
OPTIONAL MATCH (e:Erasure {user_ref: $user_ref})
RETURN max(e.at) AS erased_at, count(CASE WHEN e.state = 'erasing' THEN 1 END) > 0 AS erasing
