// params:
CREATE CONSTRAINT audit_user_id_unique IF NOT EXISTS FOR (a:AuditEvent) REQUIRE (a.user_id, a.id) IS UNIQUE
