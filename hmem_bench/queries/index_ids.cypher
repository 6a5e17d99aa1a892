// params:
// Every index by id (its folder under schema/index/) and name.
SHOW INDEXES YIELD id, name
