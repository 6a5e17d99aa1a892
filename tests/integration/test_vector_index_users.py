"""The vector index holds the facts of users big enough to need it, and only theirs.

A user with at most ``vector_index_min_facts`` facts is searched by the exact scan, so
its facts carry no ``IndexedFact`` label and writing them skips the index's update at
commit. The write (or import) that takes a user past that size fills the index with all
of the user's facts; from then on searches may use it for that user."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.graph.imported import ImportedFact
from hmem.graph.ops import memory_stats
from hmem.graph.schema import VECTOR_INDEX, VECTOR_LABEL, show_index
from hmem.graph.search import FactSearch
from hmem.models import FactDraft
from hmem.recall import Recall

NOW = datetime(2026, 6, 1, tzinfo=UTC)
MIN = 5  # vector_index_min_facts of these tests

_STATE = """
OPTIONAL MATCH (u:User {user_id: $user_id})
OPTIONAL MATCH (f:Fact {user_id: $user_id})
RETURN u.vector_index AS state, count(f) AS facts,
       count(CASE WHEN f:IndexedFact THEN 1 END) AS labelled
"""
# A fact's float array (what the index covers) and its float32 bytes (what hmem's
# procedure reads): with the plugin, only a fact in the index has both.
_COPIES = """
MATCH (f:Fact {user_id: $user_id})
RETURN count(f.embedding) AS floats, count(f.embedding_f32le) AS bytes,
       count(CASE WHEN f:PackedVector THEN 1 END) AS labelled_bytes_only
"""
_IN_INDEX = """
CALL db.index.vector.queryNodes('fact_embedding', 100, $vector) YIELD node
WHERE node.user_id = $user_id
RETURN count(node) AS found
"""


def _state(driver: Driver, user_id: str) -> tuple[str | None, int, int]:
    [row] = driver.execute_query(_STATE, user_id=user_id).records
    return row["state"], row["facts"], row["labelled"]


@pytest.fixture
def small(config: Config, driver: Driver) -> Iterator[Memory]:
    """A Memory whose users need the vector index past MIN facts."""
    mem = Memory(config.model_copy(update={"vector_index_min_facts": MIN}), driver=driver)
    yield mem
    mem.recall.close()


def _vectors(n: int, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 384))
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def _drafts(vectors: np.ndarray, start: int = 0) -> list[FactDraft]:
    return [
        FactDraft(text=f"indexed fact number {start + i}", embedding=v.tolist())
        for i, v in enumerate(vectors)
    ]


def test_a_small_user_stays_out_of_the_index_until_a_write_passes_the_size(
    small: Memory, driver: Driver, user_id: str
) -> None:
    vectors = _vectors(8)
    small.remember_many(_drafts(vectors[:MIN]), user_id=user_id, observed_at=NOW)
    assert _state(driver, user_id) == (None, MIN, 0)
    [copies] = driver.execute_query(_COPIES, user_id=user_id).records
    # the vector once, as bytes, and labelled so (GraphStore.unpack_vectors finds them)
    assert (copies["floats"], copies["bytes"], copies["labelled_bytes_only"]) == (0, MIN, MIN)
    indexed_users = memory_stats(driver, small.config.neo4j_database)["indexed_users"]
    [[found]] = driver.execute_query(_IN_INDEX, vector=vectors[0].tolist(), user_id=user_id)[0]
    assert found == 0  # the index never saw this user's vectors

    # the write that takes the user past MIN fills the index with all of its facts
    small.remember_many(_drafts(vectors[MIN:7], MIN), user_id=user_id, observed_at=NOW)
    assert _state(driver, user_id) == ("ready", 7, 7)
    # the operators' gauge (hmem_vector_index_users) counts it
    stats = memory_stats(driver, small.config.neo4j_database)
    assert stats["indexed_users"] == indexed_users + 1
    # and a later write labels its own facts in its transaction
    small.remember("indexed fact number 7", user_id=user_id, embedding=vectors[7].tolist())
    assert _state(driver, user_id) == ("ready", 8, 8)
    [[found]] = driver.execute_query(_IN_INDEX, vector=vectors[7].tolist(), user_id=user_id)[0]
    assert found == 8  # the fill made the float arrays of the facts stored as bytes
    [copies] = driver.execute_query(_COPIES, user_id=user_id).records
    assert (copies["floats"], copies["bytes"], copies["labelled_bytes_only"]) == (8, 8, 0)


def test_searches_use_the_index_only_for_a_user_it_holds(
    small: Memory, driver: Driver, user_id: str, other_user: str
) -> None:
    vectors = _vectors(12, seed=7)
    small.remember_many(_drafts(vectors), user_id=user_id, observed_at=NOW)
    small.remember_many(_drafts(vectors[:MIN]), user_id=other_user, observed_at=NOW)
    # both users are past exact_max_facts = 2; only the first is in the index
    backend = FactSearch(driver, exact_max_facts=2, search_min_facts=2)
    recall = Recall(backend, touch=False)
    query = vectors[3].tolist()
    for _ in range(2):  # the second search knows each user's size
        got = recall.search("indexed fact", user_id=user_id, k=5, vector=query, now=NOW)
        small_got = recall.search("indexed fact", user_id=other_user, k=5, vector=query, now=NOW)
    # the index first ('+exact': it held fewer than the k_dense asked, as 12 facts do)
    assert got.strategy.split("+")[0] in ("index", "search")
    assert small_got.strategy == "exact"
    exact = Recall(FactSearch(driver, exact_max_facts=10**6, search_min_facts=10**6), touch=False)
    want = exact.search("indexed fact", user_id=user_id, k=5, vector=query, now=NOW)
    assert want.strategy == "exact"
    assert [h.fact.id for h in got.hits] == [h.fact.id for h in want.hits]
    assert {h.fact.user_id for h in got.hits} == {user_id}
    assert {h.fact.user_id for h in small_got.hits} == {other_user}


def test_an_import_past_the_size_fills_the_index(
    small: Memory, driver: Driver, user_id: str
) -> None:
    vectors = _vectors(MIN + 2, seed=9)
    facts = [
        ImportedFact(
            id=f"imp-{i}",
            text=f"imported fact {i}",
            valid_from=NOW,
            known_from=NOW,
            embedding=v.tolist(),
        )
        for i, v in enumerate(vectors)
    ]
    small.store.import_facts(user_id, facts[:MIN])
    assert _state(driver, user_id) == (None, MIN, 0)
    small.store.import_facts(user_id, facts[MIN:])
    assert _state(driver, user_id) == ("ready", MIN + 2, MIN + 2)
    [[found]] = driver.execute_query(_IN_INDEX, vector=vectors[0].tolist(), user_id=user_id)[0]
    assert found == MIN + 2


def test_a_fill_that_stopped_is_finished_by_the_next_write(
    small: Memory, driver: Driver, user_id: str
) -> None:
    vectors = _vectors(MIN + 2, seed=11)
    small.remember_many(_drafts(vectors[: MIN + 1]), user_id=user_id, observed_at=NOW)
    assert _state(driver, user_id) == ("ready", MIN + 1, MIN + 1)
    # as if the process died in the middle of a fill: 'filling', two facts unlabelled
    driver.execute_query(
        "MATCH (u:User {user_id: $user_id}) SET u.vector_index = 'filling' "
        "WITH u MATCH (f:Fact {user_id: $user_id}) WITH f ORDER BY f.id LIMIT 2 "
        "REMOVE f:IndexedFact",
        user_id=user_id,
    )
    assert _state(driver, user_id) == ("filling", MIN + 1, MIN - 1)
    # searches keep to the exact scan meanwhile: the index lacks some of the facts
    backend = FactSearch(driver, exact_max_facts=2, search_min_facts=2, size_ttl_s=0)
    assert backend.user_size(user_id) == 0
    small.remember("one more indexed fact", user_id=user_id, embedding=vectors[-1].tolist())
    assert _state(driver, user_id) == ("ready", MIN + 2, MIN + 2)
    assert backend.user_size(user_id) == MIN + 2


def test_an_older_index_over_every_fact_is_made_again_and_filled(
    config: Config, driver: Driver, user_id: str, other_user: str
) -> None:
    """A store of an older hmem has the index over every Fact: init_schema makes it
    again over IndexedFact and fills it for the users past the size."""
    mem = Memory(config.model_copy(update={"vector_index_min_facts": MIN}), driver=driver)
    try:
        mem.init_schema()
        vectors = _vectors(MIN + 1, seed=13)
        mem.remember_many(_drafts(vectors), user_id=user_id, observed_at=NOW)
        mem.remember_many(_drafts(vectors[:2]), user_id=other_user, observed_at=NOW)
        # as an older hmem left it: no labels, no state, the index over every Fact
        driver.execute_query(
            "MATCH (n:Fact|User) WHERE n.user_id IN $users REMOVE n:IndexedFact, n.vector_index",
            users=[user_id, other_user],
        )
        driver.execute_query("DROP INDEX fact_embedding IF EXISTS")
        driver.execute_query(
            "CREATE VECTOR INDEX fact_embedding FOR (f:Fact) ON f.embedding OPTIONS "
            "{indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}"
        )
        assert _state(driver, user_id) == (None, MIN + 1, 0)
        mem.init_schema()
        row = show_index(driver, config.neo4j_database, VECTOR_INDEX)
        assert row is not None and row["labelsOrTypes"] == [VECTOR_LABEL]
        assert _state(driver, user_id) == ("ready", MIN + 1, MIN + 1)
        assert _state(driver, other_user) == (None, 2, 0)
    finally:
        mem.init_schema()  # the index over IndexedFact whatever happened
        mem.recall.close()
