// The audit trail: what was done to a user's memory, when, to which fact ids (never
// the text). Erasures of whole users are receipts keyed by a hash, see the second query
// in docs/cypher.md.
:param user_id => 'demo:maya';

MATCH (a:AuditEvent {user_id: $user_id})
RETURN a.at AS at, a.op AS op, a.fact_ids AS fact_ids, a.detail AS detail
ORDER BY at DESC, a.id
LIMIT 200;
