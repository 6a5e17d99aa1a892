// params: key_id, tenant, user_ids, salt, digest, name, created_at
// An API key belongs to a tenant, not to a user: it carries no user_id. Only a salted
// hash of its secret is stored; the key itself is shown once, when it is created.
CREATE (k:ApiKey {key_id: $key_id, tenant: $tenant, user_ids: $user_ids, salt: $salt,
                  digest: $digest, name: $name, created_at: $created_at, revoked_at: null})
RETURN k.key_id AS key_id
