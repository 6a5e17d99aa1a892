// Fragment (//include vector_once): after `f` (a Fact) and `x` (a row with x.embedding,
// a float list, and x.packed, the same vector as float32 little-endian bytes), f's
// vector stored once where it is read, as write_apply.cypher stores a new fact's. With
// hmem's plugin (the //native text): the bytes (embedding_f32le, which hmem.vector.topk
// reads: Neo4j keeps byte arrays as they are), and for a fact in the vector index
// (IndexedFact) also the float array the index covers, which hmem.vector.set makes from
// the same bytes; a float copy of a fact outside the index (an older hmem's, or the old
// model's) is removed and the fact labelled PackedVector. Without the plugin: a float
// list, stored as float32 by setNodeVectorProperty (half the bytes of a plain SET), and
// an older byte copy and the label are removed. A stale copy must not stay: the
// procedure reads the bytes first. Included by fact_set_embedding.cypher and
// admin_reembed_set.cypher.
//plain begin
CALL db.create.setNodeVectorProperty(f, 'embedding', x.embedding)
REMOVE f.embedding_f32le, f:PackedVector
//plain end
//native SET f.embedding_f32le = x.packed
//native REMOVE f.embedding
//native FOREACH (_ IN CASE WHEN f:IndexedFact THEN [] ELSE [1] END | SET f:PackedVector)
//native WITH f, x
//native CALL (f, x) {
//native   WITH f, x WHERE f:IndexedFact
//native   CALL hmem.vector.set(f, 'embedding', x.packed)
//native }
