// The erasure guard, the start of every write transaction (user_guard.cypher; for
// GraphStore.write, write_apply.cypher, which makes the changes in the same round trip,
// or write_check.cypher, which first reads the stored facts a write names).
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
