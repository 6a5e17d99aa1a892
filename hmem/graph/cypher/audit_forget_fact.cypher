// params: user_id, fact_id, ref, quoted, quoted_ref
// A fact's erasure reaches the audit trail (issue 32, D14): every event of the user
// that names the fact (its fact_ids, or a detail's JSON, where restore keeps the edges
// it undid) names the fact's keyed ref instead (hmem.graph._base.fact_ref). A
// caller-chosen id can carry text (a name, a token); the events, their times and
// counts stay. $quoted and $quoted_ref: the id and the ref as JSON strings, as the
// details hold them (hmem.graph._base.StoreBase._audit_row).
MATCH (a:AuditEvent {user_id: $user_id})
WHERE $fact_id IN a.fact_ids OR a.detail CONTAINS $quoted
SET a.fact_ids = [x IN a.fact_ids | CASE WHEN x = $fact_id THEN $ref ELSE x END],
    a.detail = replace(a.detail, $quoted, $quoted_ref)
RETURN count(a) AS events
