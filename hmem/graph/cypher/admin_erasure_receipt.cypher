// params: id, user_ref, at, counts
// Erasure is recorded without content and without the user id: only a keyed hash.
CREATE (e:Erasure {id: $id, user_ref: $user_ref, at: $at, counts: $counts})
RETURN e.id AS id
