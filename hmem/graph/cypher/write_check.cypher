// params: user_id, user_ref, now, hashes, ids, count_cap
// First statement of a write transaction (store.GraphStore.write): the erasure guard
// (_guard.cypher), then, under the user's lock, which of the new texts are already open
// facts of this user, and which of the given ids exist (a new fact's id must not; a
// target of supersedes/relates/corroborate must), with windows. One round trip.
// facts: while the user's facts are not all in the vector index, how many they are (up
// to $count_cap, one past the size that needs the index): the caller starts filling it
// when this write passes that size.
//include guard
//include facts_until_indexed
CALL () {
  MATCH (f:Fact {user_id: $user_id})
  WHERE f.hash IN $hashes AND f.known_to IS NULL
  RETURN collect(f.hash) AS open_hashes
}
CALL () {
  MATCH (f:Fact {user_id: $user_id})
  WHERE f.id IN $ids
  RETURN collect({id: f.id, valid_from: f.valid_from, valid_to: f.valid_to,
                  known_from: f.known_from, known_to: f.known_to}) AS found
}
RETURN erased_at, erasing, vector_index, facts, open_hashes, found
