// params: tenant
// Every key of one tenant, or of all tenants when $tenant is null; never the digests.
MATCH (k:ApiKey)
WHERE $tenant IS NULL OR k.tenant = $tenant
RETURN k.key_id AS key_id, k.tenant AS tenant, k.user_ids AS user_ids, k.name AS name,
       k.created_at AS created_at, k.revoked_at AS revoked_at
ORDER BY k.created_at, k.key_id
