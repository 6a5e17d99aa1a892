// params: group_id
// One group of a Graphiti graph in a few numbers, read before anything is imported:
// all zero means the group does not exist. The same numbers are the sync's watermark:
// graphiti adds edges (entity_edges, last_created) and invalidates them by setting
// expired_at and invalid_at on the stored edge (expired_edges, last_expired), and links
// an edge to each new episode that states it again (episode_links).
OPTIONAL MATCH (:Entity)-[e:RELATES_TO]->(:Entity)
WHERE e.group_id = $group_id
WITH count(e) AS entity_edges, count(e.expired_at) AS expired_edges,
     count(e.invalid_at) AS invalid_edges, max(e.created_at) AS last_created,
     max(e.expired_at) AS last_expired, sum(size(coalesce(e.episodes, []))) AS episode_links
RETURN entity_edges, expired_edges, invalid_edges, episode_links,
       toString(last_created) AS last_created, toString(last_expired) AS last_expired,
       COUNT { MATCH (n:Entity) WHERE n.group_id = $group_id } AS entity_nodes,
       COUNT { MATCH (n:Episodic) WHERE n.group_id = $group_id } AS episodes
