// params: user_id
MATCH (e:Entity {user_id: $user_id})
RETURN e {.id, .user_id, .name, .canonical, .type, .aliases} AS entity
ORDER BY e.canonical
