// params: user_id, hashes
MATCH (f:Fact {user_id: $user_id})
WHERE f.hash IN $hashes AND f.known_to IS NULL
RETURN f.hash AS hash, f.id AS id
