// params:
// An older hmem indexed every user's facts by valid_from and known_from, across users.
// Every statement reads one user's facts (found by user_id), so no read needed them,
// while each write paid for two more index entries per fact (~90 bytes a fact, and the
// planner could pick a scan of all users' facts for a small store's expiry): dropped.
DROP INDEX fact_valid_from IF EXISTS
