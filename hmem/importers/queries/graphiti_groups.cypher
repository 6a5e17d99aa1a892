// params: limit
// The groups a Graphiti graph holds, largest first, for the error that names them when
// the asked one is not there. hmem's own Entity nodes have no group_id.
MATCH (n:Entity|Episodic)
WHERE n.group_id IS NOT NULL
RETURN n.group_id AS group_id, count(*) AS nodes
ORDER BY nodes DESC, group_id
LIMIT $limit
