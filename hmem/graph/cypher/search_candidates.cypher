// params: user_id, mode, now, as_of, as_of_event, dense, vector, k_dense, fetch_dense, fetch_search, lucene_prefix, lucene_terms, lucene_names, k_lexical, fetch_term, stop_words, entities, k_entity, entity_max_facts, entity_max_share, size_cap
// The read path's candidate sources over ONE user's facts, in one round trip, as ids
// (the fragment _candidates.cypher says what each source does; search_recall.cypher
// ranks and expands the same candidates on the server).
// mode: 'current' (believed now, not ended), 'history' (everything that was once true:
// current facts and closed ones with a non-empty world window), 'asof' (the windows),
// 'asof_history' (already known / begun at the as_of times: the past of that moment,
// never its future; the caller keeps as hits only what was believed / true then).
//include candidates
RETURN coalesce(id.id, '') AS id, source, score
