"""hmem's procedure (``hmem.vector.topk``) against the plain Cypher exact scan.

The test server is started by ``hmem.localdb``, which compiles and installs the plugin;
the exact scan must give the same candidates with the same scores (bit for bit) and the
same order either way, in every temporal mode, ties included.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from neo4j import Driver, Session

from hmem import Config, Memory
from hmem.graph import catalog
from hmem.graph._records import packed
from hmem.graph.schema import migrate_belief_history
from hmem.graph.search import FactSearch, Question
from hmem.localdb.plugin import PROCEDURE

NOW = datetime(2026, 6, 1, tzinfo=UTC)

_CREATE = """
UNWIND $rows AS r
CREATE (f:Fact {user_id: $user_id, id: r.id, text: r.text, category: 'semantic',
                importance: 5, hash: r.id, valid_from: r.valid_from, valid_to: r.valid_to,
                known_from: r.known_from, known_to: r.known_to, ingested_at: r.known_from,
                last_used_at: null, corroborations: 1, source: 'test'})
WITH f, r CALL db.create.setNodeVectorProperty(f, 'embedding', r.vector)
SET f.embedding_f32le = r.packed
RETURN count(*) AS n
"""
_DROP = "MATCH (f:Fact {user_id: $user_id}) DETACH DELETE f"


@pytest.fixture(scope="module")
def facts(config: Config, driver: Driver) -> Iterator[tuple[str, list[list[float]]]]:
    """80 facts: open, closed in the world, closed in belief, future-ended; two pairs of
    identical vectors (ties broken by id); every other one also has its vector as
    float32 bytes (as the write path stores it), the rest only the float list (as
    facts written before that); one user only."""
    Memory(config, driver=driver).init_schema()
    user = f"topk-{uuid.uuid4().hex[:10]}"
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((80, 384))
    vectors[41] = vectors[40]
    vectors[7] = vectors[3]
    rows = []
    for i, v in enumerate(vectors):
        start = NOW - timedelta(days=400 - 4 * i)
        rows.append(
            {
                "id": f"f{i:02d}",
                "text": f"fact number {i}",
                "vector": (v / np.linalg.norm(v)).tolist(),
                "valid_from": start,
                "valid_to": start + timedelta(days=30) if i % 5 == 0 else None,
                "known_from": start,
                "known_to": start + timedelta(days=60) if i % 7 == 0 else None,
            }
        )
    stmt_rows = [
        {**r, "packed": packed(r["vector"]) if i % 2 else None} for i, r in enumerate(rows)
    ]
    with driver.session() as session:
        session.run(_CREATE, user_id=user, rows=stmt_rows).consume()
    # written by hand, as an older hmem did: their belief history from their state fields,
    # as schema setup gives it (docs/time.md)
    migrate_belief_history(driver, config.neo4j_database)
    queries = [rng.standard_normal(384).tolist() for _ in range(3)] + [rows[40]["vector"]]
    yield user, queries
    with driver.session() as session:
        session.run(_DROP, user_id=user).consume()


def test_the_test_server_has_the_procedure(driver: Driver) -> None:
    assert FactSearch(driver).native_topk, f"{PROCEDURE} is not installed on the test server"
    assert catalog.statement("search_recall").native is not None
    assert "hmem.vector.topk" not in catalog.statement("search_recall").text


@pytest.mark.parametrize(
    ("mode", "as_of", "as_of_event"),
    [
        ("current", None, None),
        ("history", None, None),
        ("asof", NOW - timedelta(days=200), None),
        ("asof", None, NOW - timedelta(days=150)),
        ("asof_history", NOW - timedelta(days=100), NOW - timedelta(days=120)),
    ],
)
def test_same_candidates_scores_and_order(
    driver: Driver,
    facts: tuple[str, list[list[float]]],
    mode: str,
    as_of: datetime | None,
    as_of_event: datetime | None,
) -> None:
    user, queries = facts
    native, plain = FactSearch(driver, native_topk=True), FactSearch(driver, native_topk=False)
    for vector in queries:
        for k_dense in (5, 30, 200):
            got = [
                s.candidates(
                    Question(
                        user, vector=vector, lucene=None, entity_grams=[], mode=mode,  # type: ignore[arg-type]
                        now=NOW, as_of=as_of, as_of_event=as_of_event, k_dense=k_dense,
                    ),
                    strategy="exact",
                ).rows
                for s in (native, plain)
            ]  # fmt: skip
            assert got[0] == got[1]
            assert len(got[0]) == min(k_dense, len(got[1]))
            assert got[0], "the mode selected no facts: the test data is wrong"


def test_ties_are_broken_by_id_and_retrieve_agrees(
    driver: Driver, facts: tuple[str, list[list[float]]]
) -> None:
    user, queries = facts
    native, plain = FactSearch(driver, native_topk=True), FactSearch(driver, native_topk=False)
    twin = queries[-1]  # the vector of f40, which f41 shares
    rows = native.candidates(
        Question(
            user, vector=twin, lucene=None, entity_grams=[], mode="history", now=NOW, k_dense=3
        ),
        strategy="exact",
    ).rows  # fmt: skip
    assert [r.id for r in rows[:2]] == ["f40", "f41"]
    assert rows[0].score == rows[1].score
    both = [
        s.retrieve(
            Question(
                user,
                vector=twin,
                lucene=None,
                entity_grams=[],
                mode="current",
                now=NOW,
                weights=(0.8, 0.1, 0.1, 0.0, 0.0, 0.0, 0.0),
                keep=10,
            ),
            strategy="exact",
        )
        for s in (native, plain)
    ]
    assert both[0].candidates.rows == both[1].candidates.rows
    assert [e.fact.id for e in both[0].expanded] == [e.fact.id for e in both[1].expanded]


def test_bad_input_to_the_procedure_gives_nothing(driver: Driver) -> None:
    """Called by hand in Neo4j Browser: no nodes, a zero vector, a wrong dimension or
    k <= 0 give no rows, never an error or a wrong score; a property of the wrong
    dimension is passed over for the next one."""
    with driver.session() as session:
        session.run(
            "CREATE (:TopkProbe {v: [1.0, 2.0, 3.0], b: $b, short: $short})",
            b=packed([1.0, 2.0, 3.0]),
            short=packed([1.0, 2.0]),
        ).consume()
        try:
            _probe(session)
        finally:
            session.run("MATCH (n:TopkProbe) DELETE n").consume()


def _probe(session: Session) -> None:
    for nodes, vector, k in (
        ("[]", [1.0, 0.0], 3),
        ("[n]", [0.0, 0.0, 0.0], 3),
        ("[n]", [1.0, 0.0], 3),
        ("[n]", [1.0, 0.0, 0.0], 0),
    ):
        rows = session.run(
            f"MATCH (n:TopkProbe) CALL hmem.vector.topk({nodes}, ['v'], $vector, $k) "
            "YIELD node, score RETURN score",
            vector=vector,
            k=k,
        ).values()
        assert rows == [], (nodes, vector, k)
    scores = {}
    for properties in (["v"], ["b"], ["missing", "short", "b"], ["b", "v"]):
        [[scores[str(properties)]]] = session.run(
            "MATCH (n:TopkProbe) CALL hmem.vector.topk([n], $properties, [0.5, 4.0, 6.0], 1) "
            "YIELD score RETURN score",
            properties=properties,
        ).values()
    [[cypher]] = session.run(
        "MATCH (n:TopkProbe) RETURN vector.similarity.cosine(n.v, [0.5, 4.0, 6.0])"
    ).values()
    assert set(scores.values()) == {cypher}, scores  # bytes or list: the same score


def test_the_write_path_stores_the_vector_once_as_bytes(
    memory: Memory, driver: Driver, user_id: str
) -> None:
    """With the plugin, a fact outside the vector index keeps its vector once: the
    float32 bytes the procedure reads, no float array beside them."""
    vector = [float(x) for x in np.random.default_rng(3).standard_normal(384)]
    [fact_id] = memory.remember("Maya keeps bees.", user_id=user_id, embedding=vector).added
    with driver.session() as session:
        [[stored, raw]] = session.run(
            "MATCH (f:Fact {user_id: $user_id, id: $id}) RETURN f.embedding, f.embedding_f32le",
            user_id=user_id,
            id=fact_id,
        ).values()
    assert stored is None
    assert raw == packed(vector)


def test_a_facts_vector_is_read_back_by_hand_with_hmem_vector_of(
    memory: Memory, driver: Driver, user_id: str
) -> None:
    """``hmem.vector.of(f)`` (docs/cypher.md) gives a fact's vector whether it is stored
    as bytes (the plugin's writes) or as a float array (a write without the plugin), so
    the docs' "closest to one of theirs" query runs as written."""
    rng = np.random.default_rng(4)
    vectors = [[float(x) for x in rng.standard_normal(384)] for _ in range(3)]
    ids = [
        memory.remember(f"Maya's fact {i}.", user_id=user_id, embedding=v).added[0]
        for i, v in enumerate(vectors)
    ]
    driver.execute_query(  # one as written without the plugin: a float array, no bytes
        "MATCH (f:Fact {user_id: $u, id: $id}) REMOVE f.embedding_f32le "
        "WITH f CALL db.create.setNodeVectorProperty(f, 'embedding', $v)",
        u=user_id,
        id=ids[2],
        v=vectors[2],
    )
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact {user_id: $u}) RETURN f.id AS id, hmem.vector.of(f) AS v", u=user_id
    )
    got = {r["id"]: r["v"] for r in records}
    assert [packed(got[i]) for i in ids] == [packed(v) for v in vectors]
    closest, _, _ = driver.execute_query(
        "MATCH (seed:Fact {user_id: $u, id: $id}) "
        "MATCH (f:Fact {user_id: $u}) WITH seed, collect(f) AS facts "
        "CALL hmem.vector.topk(facts, ['embedding_f32le', 'embedding'], hmem.vector.of(seed), 3) "
        "YIELD node, score RETURN node.id AS id, score",
        u=user_id,
        id=ids[2],
    )
    assert closest[0]["id"] == ids[2] and closest[0]["score"] == pytest.approx(1.0)
    assert driver.execute_query("RETURN hmem.vector.of(null) AS v").records[0]["v"] is None
