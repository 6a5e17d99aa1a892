// params:
CREATE INDEX audit_user IF NOT EXISTS FOR (a:AuditEvent) ON (a.user_id)
