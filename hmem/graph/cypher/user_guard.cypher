// params: user_id, user_ref, now
// The first statement of every write transaction but GraphStore.write's (which runs
// write_check.cypher instead): the erasure guard (_guard.cypher).
//include guard
RETURN erased_at, erasing, vector_index
