// params: key_id
MATCH (k:ApiKey {key_id: $key_id})
RETURN k.key_id AS key_id, k.tenant AS tenant, k.user_ids AS user_ids, k.salt AS salt,
       k.digest AS digest, k.name AS name, k.created_at AS created_at,
       k.revoked_at AS revoked_at
