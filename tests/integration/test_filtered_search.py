"""Neo4j 2026.x: the in-index filtered vector search against the exact per-user scan.

On a 2026.02+ server (``HMEM_NEO4J_VERSION=2026`` for ``scripts/test``) the vector
index holds ``user_id`` as a filter property and big users are searched with Cypher 25
``SEARCH ... WHERE f.user_id = $user_id``. It must find (nearly) what the exact scan
finds, with the same scores, never another user's fact, and fall back to the exact scan
when the time filter leaves fewer than k. On 5.26 the test checks that the branch is
never used (the statement's plain text has no SEARCH).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.graph import catalog
from hmem.graph._records import packed
from hmem.graph.schema import filtered_search, migrate_belief_history, server_version
from hmem.graph.search import FactSearch, Question

NOW = datetime(2026, 6, 1, tzinfo=UTC)
N = 400

# The facts of users big enough for the vector index carry IndexedFact (the label it
# covers, see GraphStore.fill_vector_index).
_CREATE = """
UNWIND $rows AS r
CREATE (f:Fact:IndexedFact {user_id: r.user_id, id: r.id, text: r.text, category: 'semantic',
                importance: 5, hash: r.id, valid_from: r.valid_from, valid_to: r.valid_to,
                known_from: r.known_from, known_to: r.known_to, ingested_at: r.known_from,
                last_used_at: null, corroborations: 1, source: 'test'})
WITH f, r CALL db.create.setNodeVectorProperty(f, 'embedding', r.vector)
SET f.embedding_f32le = r.packed
RETURN count(*) AS n
"""
_DROP = "MATCH (f:Fact) WHERE f.user_id IN $users DETACH DELETE f"


@pytest.fixture(scope="module")
def on_2026(config: Config, driver: Driver) -> bool:
    Memory(config, driver=driver).init_schema()
    return filtered_search(server_version(driver, config.neo4j_database))


@pytest.fixture(scope="module")
def users(config: Config, driver: Driver, on_2026: bool) -> Iterator[tuple[str, str, np.ndarray]]:
    """Two users with near-identical vectors (the other's = mine + tiny noise): N facts
    each, every 10th closed in belief time, facts spread over N days."""
    mine, theirs = (f"{p}-{uuid.uuid4().hex[:10]}" for p in ("filt", "twin"))
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((N, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = []
    for owner, noise in ((mine, 0.0), (theirs, 1e-3)):
        for i, v in enumerate(vectors):
            w = v + noise * rng.standard_normal(384)
            w = (w / np.linalg.norm(w)).tolist()
            start = NOW - timedelta(days=N - i)
            rows.append(
                {
                    "user_id": owner,
                    "id": f"{owner}-{i:03d}",
                    "text": f"fact {i}",
                    "vector": w,
                    "packed": packed(w),
                    "valid_from": start,
                    "valid_to": None,
                    "known_from": start,
                    "known_to": start + timedelta(days=5) if i % 10 == 0 else None,
                }
            )
    with driver.session() as session:
        session.run(_CREATE, rows=rows).consume()
        session.run("CALL db.awaitIndexes(300)").consume()
    # written by hand, as an older hmem did: their belief history from their state fields,
    # as schema setup gives it (docs/time.md)
    migrate_belief_history(driver, config.neo4j_database)
    yield mine, theirs, vectors
    with driver.session() as session:
        session.run(_DROP, users=[mine, theirs]).consume()


def _dense(  # type: ignore[no-untyped-def]
    search: FactSearch, user: str, vector: list[float], strategy: str, *, fallback: bool = True,
    **kw: object,
):  # fmt: skip
    asked = Question(
        user, vector=vector, lucene=None, entity_grams=[], now=NOW,
        **{"mode": "current", "k_dense": 30, **kw},  # type: ignore[arg-type]
    )  # fmt: skip
    return search.candidates(asked, strategy=strategy, fallback=fallback)  # type: ignore[arg-type]


def test_the_branch_exists_only_in_the_cypher25_text() -> None:
    for name in ("search_recall", "search_candidates"):
        stmt = catalog.statement(name)
        assert "SEARCH f IN" not in stmt.text
        assert stmt.native is not None and "SEARCH f IN" not in stmt.native
        assert stmt.cypher25 is not None and stmt.cypher25.startswith("CYPHER 25 ")
        assert "SEARCH f IN" in stmt.cypher25
        assert stmt.cypher25_native is not None and "hmem.vector.topk" in stmt.cypher25_native


def test_the_server_line_decides(driver: Driver, on_2026: bool) -> None:
    search = FactSearch(driver, search_min_facts=10)
    assert search.filtered_search is on_2026
    search._remember_size("someone", 11)
    assert search._dense("someone", [0.0], "auto") == ("search" if on_2026 else "exact")


def test_filtered_search_finds_what_the_exact_scan_finds(
    driver: Driver, on_2026: bool, users: tuple[str, str, np.ndarray]
) -> None:
    if not on_2026:
        pytest.skip("Neo4j 5.26 has no in-index filtering (run with HMEM_NEO4J_VERSION=2026)")
    mine, theirs, vectors = users
    search = FactSearch(driver, search_overfetch=2)
    rng = np.random.default_rng(9)
    queries = [v.tolist() for v in vectors[:5]] + [
        rng.standard_normal(384).tolist() for _ in range(15)
    ]
    overlap = 0.0
    for vector in queries:
        exact = _dense(search, mine, vector, "exact")
        got = _dense(search, mine, vector, "search", fallback=False)
        assert got.strategy == "search"
        assert all(c.id.startswith(mine) for c in got.rows)  # never the twin's facts
        assert len(got.rows) <= 30
        scores = {c.id: c.score for c in exact.rows}
        for c in got.rows:
            if c.id in scores:  # the index scores like vector.similarity.cosine
                assert c.score == pytest.approx(scores[c.id], abs=1e-5)
        overlap += len({c.id for c in got.rows} & set(scores)) / len(scores)
    assert overlap / len(queries) >= 0.9
    assert all(c.id.startswith(theirs) for c in _dense(search, theirs, queries[0], "search").rows)


def test_too_few_after_the_time_filter_falls_back_to_the_exact_scan(
    driver: Driver, on_2026: bool, users: tuple[str, str, np.ndarray]
) -> None:
    if not on_2026:
        pytest.skip("Neo4j 5.26 has no in-index filtering (run with HMEM_NEO4J_VERSION=2026)")
    mine, _, vectors = users
    search = FactSearch(driver)
    # known then: only the first 20 facts, fewer than k = 30 whatever the index returns
    early = {"mode": "asof", "as_of": NOW - timedelta(days=N - 20)}
    vector = vectors[-1].tolist()
    got = _dense(search, mine, vector, "search", **early)
    exact = _dense(search, mine, vector, "exact", **early)
    assert got.strategy == "search+exact" and got.round_trips == 2
    assert got.rows == exact.rows and 0 < len(exact.rows) < 30
    retrieved = search.retrieve(
        Question(
            mine, vector=vector, lucene=None, entity_grams=[], now=NOW,
            weights=(0.8, 0.1, 0.1, 0, 0, 0, 0), keep=10, k_dense=30, **early,  # type: ignore[arg-type]
        ),
        strategy="search",
    )  # fmt: skip
    assert retrieved.candidates.strategy == "search+exact"
    assert [c for c in retrieved.candidates.rows if c.source == "dense"] == exact.rows
