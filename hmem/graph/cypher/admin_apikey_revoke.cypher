// params: key_id, at
MATCH (k:ApiKey {key_id: $key_id})
SET k.revoked_at = coalesce(k.revoked_at, $at)
RETURN k.key_id AS key_id, k.revoked_at AS revoked_at
