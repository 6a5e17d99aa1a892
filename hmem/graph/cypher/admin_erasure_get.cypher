// params: user_ref
// One user's erasure receipt, by its keyed ref (hmem.graph._base.user_ref): when, its
// state, how much went. The ref is the only key; nothing here names the user.
MATCH (e:Erasure {user_ref: $user_ref}) USING INDEX e:Erasure(user_ref)
RETURN e {.at, .done_at, .state, .counts} AS receipt
