// params: user_id, user_ref, now
// The first statement of every write transaction but GraphStore.write's (which starts
// with write_apply.cypher or write_check.cypher instead): the erasure guard
// (_guard.cypher). GraphStore.write runs it alone only to say why write_apply refused.
//include guard
RETURN erased_at, erasing, vector_index
