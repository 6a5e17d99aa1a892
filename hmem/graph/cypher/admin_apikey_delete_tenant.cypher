// params: tenant
// Remove every key of a tenant (revocation keeps them for the record; this does not).
MATCH (k:ApiKey {tenant: $tenant})
DELETE k
RETURN count(*) AS deleted
