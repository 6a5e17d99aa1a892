// params: limit
// The users written to most recently, for the warm-up's searches of real data
// (hmem/warm_up.py): their ids only, read by the process itself and never answered to a
// caller. An erased user has no root (user_erase_root); one being erased is skipped.
MATCH (u:User)
WHERE u.written_at IS NOT NULL AND u.erasing_at IS NULL
RETURN u.user_id AS user_id
ORDER BY u.written_at DESC
LIMIT $limit
