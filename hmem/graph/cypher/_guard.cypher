// The erasure guard, the start of every write transaction (user_guard.cypher, and
// write_check.cypher, which reads what a write depends on in the same round trip).
// Writing the user's root takes its lock until commit, so a write and an erasure
// (user_erase_begin writes the same node) never interleave; the user's erasure
// markers then say whether this write may land. vector_index: whether this user's
// facts go into the vector index ('filling' or 'ready', see user_vector_index_*.cypher;
// null for a user below the size that needs it), read under the same lock.
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.created_at = $now
SET u.written_at = $now
WITH u
OPTIONAL MATCH (e:Erasure {user_ref: $user_ref})
WITH u.vector_index AS vector_index,
     max(e.at) AS erased_at, count(CASE WHEN e.state = 'erasing' THEN 1 END) > 0 AS erasing
