// params: user_id, fact_id
// Real erasure: the fact, its vector (a property of the node), the episodes only it
// came from, and entities no other fact mentions. An episode another fact still came
// from stays (that fact's provenance), with the erased fact's text cut out of it
// wherever it appears verbatim (a model's paraphrase cannot be found this way: erase
// the session's other facts, or the user, to take all its words). Returns the text and
// the episode ids for the caller to purge the job queue (hmem.ingest.queue.purge_fact),
// never for a log.
MATCH (f:Fact {user_id: $user_id, id: $fact_id}) USING INDEX f:Fact(user_id, id)
OPTIONAL MATCH (f)-[:FROM]->(ep:Episode {user_id: $user_id})
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity {user_id: $user_id})
WITH f, f.text AS text, collect(DISTINCT ep) AS episodes, collect(DISTINCT e) AS entities
DETACH DELETE f
WITH text, episodes, entities, [ep IN episodes | ep.id] AS episode_ids,
     [ep IN episodes WHERE NOT EXISTS { (ep)<-[:FROM]-(:Fact {user_id: $user_id}) }] AS unneeded
FOREACH (ep IN [x IN episodes WHERE NOT x IN unneeded] |
  SET ep.text = replace(ep.text, text, '[erased]'))
FOREACH (ep IN unneeded | DETACH DELETE ep)
WITH text, episode_ids, unneeded, [e IN entities WHERE NOT EXISTS { (e)<-[:MENTIONS]-() }] AS orphans
FOREACH (e IN orphans | DETACH DELETE e)
RETURN size(unneeded) AS episodes, size(orphans) AS entities, text, episode_ids
