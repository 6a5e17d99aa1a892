// params: user_id, rows
// Each row's fact gets its vector, stored once where it is read (the fragment
// _vector_once.cypher: bytes with hmem's plugin, a float list without it).
UNWIND $rows AS x
MATCH (f:Fact {user_id: $user_id, id: x.id}) USING INDEX f:Fact(user_id, id)
//include vector_once
RETURN count(f) AS embedded
