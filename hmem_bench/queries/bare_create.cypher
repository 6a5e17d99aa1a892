// params: user_id, rows
// The write benchmark's floor: the rows remember_many writes, created with nothing else
// (no guard, dedup, entities, episode or audit); deleted again by bare_delete.
UNWIND $rows AS row
CREATE (:BenchBareFact {user_id: $user_id, id: row.id, text: row.text,
                        embedding: row.embedding, valid_from: row.valid_from})
