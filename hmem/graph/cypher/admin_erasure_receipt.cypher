// params: id, counts, done_at
// Erasure, last step: the marker becomes the receipt (when, and how much went).
MATCH (e:Erasure {id: $id})
SET e.state = 'done', e.counts = $counts, e.done_at = $done_at
RETURN e.id AS id
