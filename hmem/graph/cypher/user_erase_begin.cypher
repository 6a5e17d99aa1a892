// params: user_id, user_ref, id, at
// Erasure, step 1, committed before anything is deleted: the marker every write
// transaction reads (user_guard). Writing the user's root waits for a write in flight
// and makes later ones wait for this. One marker per erased user, keyed by a hash of
// the user id (no id, no content); erasing again moves its time.
MERGE (u:User {user_id: $user_id})
SET u.erasing_at = $at
MERGE (e:Erasure {user_ref: $user_ref})
SET e.id = $id, e.at = $at, e.state = 'erasing'
RETURN e.id AS id
