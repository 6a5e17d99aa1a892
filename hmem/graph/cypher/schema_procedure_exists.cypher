// params: procedure
// Whether the server has a procedure: hmem's plugin (hmem.localdb.plugin) is optional.
SHOW PROCEDURES YIELD name WHERE name = $procedure
RETURN count(*) > 0 AS present
