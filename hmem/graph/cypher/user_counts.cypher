// params: user_id
// What is stored for a user, per label; erasure proves itself with this.
RETURN
  COUNT { MATCH (n:Fact {user_id: $user_id}) } AS facts,
  COUNT { MATCH (n:Fact {user_id: $user_id})
          WHERE n.embedding_f32le IS NOT NULL OR n.embedding IS NOT NULL } AS vectors,
  COUNT { MATCH (n:Entity {user_id: $user_id}) } AS entities,
  COUNT { MATCH (n:Episode {user_id: $user_id}) } AS episodes,
  COUNT { MATCH (n:AuditEvent {user_id: $user_id}) } AS audit_events,
  COUNT { MATCH (n:Profile {user_id: $user_id}) } AS profiles,
  COUNT { MATCH (n:User {user_id: $user_id}) } AS users,
  COUNT { MATCH (n {user_id: $user_id}) } AS any_nodes
