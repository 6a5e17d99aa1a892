// params: user_id, user_ref, now, hashes, ids
// First statement of a write that names stored facts (supersedes, relates, conflicts,
// corroborations; store.GraphStore.write): the erasure guard (_guard.cypher), then,
// under the user's lock, which of the new texts are already open facts of this user, and
// which of the given ids exist (a new fact's id must not; a target must), with windows:
// the caller works out the closes from them. One round trip; write_apply.cypher follows.
//include guard
CALL () {
  MATCH (f:Fact {user_id: $user_id}) USING INDEX f:Fact(user_id, hash)
  WHERE f.hash IN $hashes AND f.known_to IS NULL
  RETURN collect(f.hash) AS open_hashes
}
CALL () {
  MATCH (f:Fact {user_id: $user_id}) USING INDEX f:Fact(user_id, id)
  WHERE f.id IN $ids
  RETURN collect({id: f.id, valid_from: f.valid_from, valid_to: f.valid_to,
                  known_from: f.known_from, known_to: f.known_to,
                  changed_at: last(f.belief_at)}) AS found
}
RETURN erased_at, erasing, vector_index, open_hashes, found
