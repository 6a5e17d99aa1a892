// A user's timeline: every fact in world-time order, with both clocks and its state.
:param user_id => 'demo:maya';

MATCH (f:Fact {user_id: $user_id})
RETURN f.valid_from AS true_from, f.valid_to AS true_until,
       f.known_from AS learned, f.known_to AS stopped_believing,
       CASE WHEN f.known_to IS NULL THEN 'believed' ELSE 'closed: ' + f.close_reason END AS state,
       f.category AS category, f.text AS text, f.id AS id
ORDER BY true_from, learned, id;
