"""Isolation under the vector index: 5,000 users whose facts are near-identical.

The 5.26 vector index filters by user only after its global top-N, so with thousands
of users saying the same thing a user's own facts are rarely in that top-N. Search
must still give every user k of their own facts when they have k, and never one of
another user's. The facts are written in bulk by test-side Cypher (a few seconds
instead of 5,000 ``remember`` calls) and removed by this test's own prefix.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.graph.search import FactSearch, Question
from hmem.recall import Recall

USERS = 5_000
BIG = 3  # users with 40 facts each
K = 30
NOW = datetime(2026, 6, 1, tzinfo=UTC)

# Every user's facts are in the vector index (IndexedFact, the user's root 'ready'), as
# with vector_index_min_facts = 0: the index holds all 5,003 users.
_CREATE = """
UNWIND $rows AS r
MERGE (u:User {user_id: r.user_id})
SET u.vector_index = 'ready'
CREATE (f:Fact:IndexedFact {user_id: r.user_id, id: r.id, text: r.text, category: 'semantic',
                importance: 5, hash: r.id, valid_from: $now, valid_to: null,
                known_from: $now, known_to: null, ingested_at: $now, last_used_at: null,
                corroborations: 1, source: 'test'})
WITH f, r CALL db.create.setNodeVectorProperty(f, 'embedding', r.vector)
RETURN count(*) AS n
"""
_DROP = "MATCH (n:Fact|User) WHERE n.user_id STARTS WITH $prefix DETACH DELETE n"


@pytest.fixture(scope="module")
def crowd(config: Config, driver: Driver) -> Iterator[tuple[str, np.ndarray]]:
    Memory(config, driver=driver).init_schema()
    prefix = f"iso-{uuid.uuid4().hex[:8]}-"
    rng = np.random.default_rng(5)
    base = rng.standard_normal(384)
    base /= np.linalg.norm(base)

    def near() -> list[float]:
        v = base + 0.01 * rng.standard_normal(384)
        out: list[float] = (v / np.linalg.norm(v)).tolist()
        return out

    rows = [
        {
            "user_id": f"{prefix}{u:05d}",
            "id": f"f{u}",
            "text": "Maya lives in London.",
            "vector": near(),
        }
        for u in range(USERS)
    ]
    rows += [
        {
            "user_id": f"{prefix}big{b}",
            "id": f"big{b}-{i}",
            "text": f"Maya lives in London, note {i}.",
            "vector": near(),
        }
        for b in range(BIG)
        for i in range(40)
    ]
    try:
        for start in range(0, len(rows), 1_000):
            driver.execute_query(_CREATE, rows=rows[start : start + 1_000], now=NOW)
        yield prefix, base
    finally:
        driver.execute_query(_DROP, prefix=prefix)


@pytest.mark.parametrize("exact_max", [0, 20_000], ids=["index-first", "exact"])
def test_every_user_gets_k_of_their_own(
    crowd: tuple[str, np.ndarray], driver: Driver, exact_max: int
) -> None:
    prefix, base = crowd
    # exact_max=0: every user goes to the HNSW index first (over-fetch, then fallback)
    recall = Recall(FactSearch(driver, exact_max_facts=exact_max), touch=False)
    query = base.tolist()
    strategies = set()
    for b in range(BIG):
        user = f"{prefix}big{b}"
        for _ in range(2):  # the second search knows the user's size
            result = recall.search(
                "Where does Maya live?", user_id=user, k=K, vector=query, now=NOW
            )
            assert len(result.hits) == K
            assert {h.fact.user_id for h in result.hits} == {user}
            strategies.add(result.strategy)
    for u in range(0, USERS, 97):
        user = f"{prefix}{u:05d}"
        result = recall.search("Where does Maya live?", user_id=user, k=K, vector=query, now=NOW)
        assert [h.fact.id for h in result.hits] == [f"f{u}"]  # all they have, only theirs
        assert result.hits[0].fact.user_id == user
    assert strategies == ({"exact"} if exact_max else {"exact", "index+exact"})


def test_the_raw_index_alone_would_starve_users(
    crowd: tuple[str, np.ndarray], driver: Driver
) -> None:
    """Why the fallback exists: the index's global top-N holds almost none of a user's
    facts when 5,000 users say the same thing."""
    prefix, base = crowd
    search = FactSearch(driver, exact_max_facts=0)
    got = search.candidates(
        Question(
            f"{prefix}big0",
            vector=base.tolist(),
            lucene=None,
            entity_grams=[],
            mode="current",
            now=NOW,
            k_dense=K,
        ),
        strategy="index",
        fallback=False,
    )
    own = [c for c in got.rows if c.source == "dense"]
    assert len(own) < K
    assert all(c.id.startswith("big0-") for c in own)
