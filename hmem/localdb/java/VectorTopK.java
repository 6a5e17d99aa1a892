package hmem.neo4j;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.stream.Stream;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.neo4j.graphdb.Node;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.UserFunction;

/**
 * The exact per-user dense scan of hmem's read path as one procedure call.
 *
 * <p>Same scores as Cypher's {@code vector.similarity.cosine(stored, query)}: both vectors
 * are L2-normalised in double, narrowed to float, and scored by Lucene's DOT_PRODUCT as
 * (1 + dot) / 2. Same order as {@code ORDER BY score DESC, n.id}. The caller passes the
 * nodes it matched (one user's, already filtered by time), so the procedure sees nothing
 * else. Nodes without a valid vector of the query's dimension are skipped.
 *
 * <p>A vector is read from the first of the given properties that holds one: with this
 * plugin hmem keeps a fact's vector as float32 little-endian bytes ({@code
 * embedding_f32le}), and a fact in the vector index (or written without the plugin) has
 * a float list ({@code embedding}) too or instead. Neo4j stores byte arrays as they are
 * but bit-packs float arrays, and unpacking 384 floats cost more than the rest of the
 * scan (measured: docs/retrieval.md).
 *
 * <p>Why a procedure: in Cypher each row also pays for a generic list-to-vector
 * conversion of both arguments and the slotted runtime's sort; here the query vector is
 * converted once and only the best k are kept.
 *
 * <p>{@code hmem.vector.set} is the write side: it stores a vector sent as float32 bytes
 * as the float array that {@code db.create.setNodeVectorProperty} stores from a float
 * list. A float list parameter costs the server an object per value to unpack (about
 * 0.3 ms per 384-d vector, more than the rest of a fact's write; docs/write-path.md);
 * bytes arrive as one array.
 */
public class VectorTopK {
    public static final class Hit {
        public Node node;
        public double score;

        Hit(Node node, double score) {
            this.node = node;
            this.score = score;
        }
    }

    private static final class Scored {
        final Node node;
        final float score;
        String id;

        Scored(Node node, float score) {
            this.node = node;
            this.score = score;
        }

        String id() {
            if (id == null) {
                Object value = node.getProperty("id", null);
                id = value instanceof String s ? s : "";
            }
            return id;
        }
    }

    /** Best first: higher score, then the smaller id. */
    private static final Comparator<Scored> BEST_FIRST =
            Comparator.<Scored>comparingDouble(s -> -s.score).thenComparing(Scored::id);

    @Procedure(name = "hmem.vector.topk", mode = Mode.READ)
    @Description("hmem.vector.topk(nodes, properties, vector, k): the k nodes whose vector "
            + "(the first of properties holding one: float32 little-endian bytes or a float "
            + "list) is closest to vector, with the score of vector.similarity.cosine, best "
            + "first (ties by the id property).")
    public Stream<Hit> topk(
            @Name("nodes") List<Node> nodes,
            @Name("properties") List<String> properties,
            @Name("vector") List<Double> vector,
            @Name("k") long k) {
        float[] query = normalised(vector);
        if (query == null || k <= 0 || nodes == null || properties == null) {
            return Stream.empty();
        }
        int keep = (int) Math.min(k, Integer.MAX_VALUE);
        PriorityQueue<Scored> worstFirst = new PriorityQueue<>(BEST_FIRST.reversed());
        for (Node node : nodes) {
            if (node == null) {
                continue;
            }
            float[] stored = null;
            for (int p = 0; stored == null && p < properties.size(); p++) {
                stored = normalised(node.getProperty(properties.get(p), null), query.length);
            }
            if (stored == null) {
                continue;
            }
            Scored hit = new Scored(node, VectorSimilarityFunction.DOT_PRODUCT.compare(stored, query));
            if (worstFirst.size() < keep) {
                worstFirst.add(hit);
            } else if (BEST_FIRST.compare(hit, worstFirst.peek()) < 0) {
                worstFirst.poll();
                worstFirst.add(hit);
            }
        }
        List<Scored> best = new ArrayList<>(worstFirst);
        best.sort(BEST_FIRST);
        return best.stream().map(s -> new Hit(s.node, s.score));
    }

    @Procedure(name = "hmem.vector.set", mode = Mode.WRITE)
    @Description("hmem.vector.set(node, property, vector): set the node's property to the "
            + "float32 little-endian vector given as bytes, stored as a float array (as "
            + "db.create.setNodeVectorProperty stores a float list), so the vector index "
            + "sees it. Refuses an empty, ragged or non-finite vector.")
    public void set(
            @Name("node") Node node,
            @Name("property") String property,
            @Name("vector") byte[] vector) {
        if (node == null || property == null || vector == null) {
            throw new IllegalArgumentException("hmem.vector.set needs a node, a property and a vector");
        }
        if (vector.length == 0 || vector.length % 4 != 0) {
            throw new IllegalArgumentException(
                    "hmem.vector.set: " + vector.length + " bytes are not float32 values");
        }
        FloatBuffer floats = ByteBuffer.wrap(vector).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] values = new float[vector.length / 4];
        floats.get(values);
        for (float x : values) {
            if (!Float.isFinite(x)) {
                throw new IllegalArgumentException("hmem.vector.set: the vector holds a non-finite value");
            }
        }
        node.setProperty(property, values);
    }

    @UserFunction(name = "hmem.vector.of")
    @Description("hmem.vector.of(node): the fact's vector as a float list, from its float32 "
            + "little-endian bytes (embedding_f32le) or else its float array (embedding); "
            + "null without one. For queries by hand: hmem keeps most facts' vectors as bytes.")
    public List<Double> of(@Name("node") Node node) {
        if (node == null) {
            return null;
        }
        Object bytes = node.getProperty("embedding_f32le", null);
        if (bytes instanceof byte[] raw && raw.length > 0 && raw.length % 4 == 0) {
            FloatBuffer floats = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            List<Double> out = new ArrayList<>(floats.remaining());
            while (floats.hasRemaining()) {
                out.add((double) floats.get());
            }
            return out;
        }
        Object value = node.getProperty("embedding", null);
        if (value instanceof float[] floats) {
            List<Double> out = new ArrayList<>(floats.length);
            for (float x : floats) {
                out.add((double) x);
            }
            return out;
        }
        if (value instanceof double[] doubles) {
            List<Double> out = new ArrayList<>(doubles.length);
            for (double x : doubles) {
                out.add(x);
            }
            return out;
        }
        return null;
    }

    private static float[] normalised(List<Double> vector) {
        if (vector == null || vector.isEmpty()) {
            return null;
        }
        double[] values = new double[vector.size()];
        for (int i = 0; i < values.length; i++) {
            Double x = vector.get(i);
            if (x == null) {
                return null;
            }
            values[i] = x;
        }
        return normalised(values);
    }

    private static float[] normalised(Object value, int dimensions) {
        if (value instanceof byte[] bytes && bytes.length == 4 * dimensions) {
            FloatBuffer floats = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            double[] values = new double[dimensions];
            for (int i = 0; i < dimensions; i++) {
                values[i] = floats.get(i);
            }
            return normalised(values);
        }
        if (value instanceof float[] floats && floats.length == dimensions) {
            double[] values = new double[dimensions];
            for (int i = 0; i < dimensions; i++) {
                values[i] = floats[i];
            }
            return normalised(values);
        }
        if (value instanceof double[] doubles && doubles.length == dimensions) {
            return normalised(doubles);
        }
        return null;
    }

    /** As Neo4j's cosine does: L2-normalise in double, then narrow to float; null if invalid. */
    private static float[] normalised(double[] values) {
        double square = 0.0;
        for (double x : values) {
            if (!Double.isFinite(x)) {
                return null;
            }
            square += x * x;
        }
        if (!(square > 0.0) || !Double.isFinite(square)) {
            return null;
        }
        double scale = 1.0 / Math.sqrt(square);
        if (!Double.isFinite(scale)) {
            return null;
        }
        float[] out = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (float) (values[i] * scale);
            if (!Float.isFinite(out[i])) {
                return null;
            }
        }
        return out;
    }
}
