// params: user_id
MATCH (n:AuditEvent {user_id: $user_id})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS
