"""Vectors written as float32 bytes through hmem's plugin (``hmem.vector.set``) against
the plain path (a float list through ``db.create.setNodeVectorProperty``): the same
stored values, the same property type, and the vector index sees both. A vector is
stored once where it is read: with the plugin as bytes (plus the float array for a fact
in the vector index), without it as a float list; a store moved to a server without the
plugin gets the float arrays (``unpack_vectors``)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
from neo4j import Driver

from hmem import Memory
from hmem.graph._records import packed
from hmem.graph.search import FactSearch, Question
from hmem.graph.store import VECTOR_SET_PROCEDURE
from hmem.models import FactDraft

NOW = datetime(2026, 6, 1, tzinfo=UTC)

_STORED = """
MATCH (f:Fact {user_id: $user_id})
RETURN f.id AS id, f.embedding AS embedding, valueType(f.embedding) AS type,
       f.embedding_f32le AS packed, f.valid_from AS valid_from, f.known_from AS known_from,
       f.valid_to AS valid_to, f:PackedVector AS bytes_only
ORDER BY id
"""
_INDEXED = """
CALL db.index.vector.queryNodes('fact_embedding', 5, $vector) YIELD node, score
WHERE node.user_id = $user_id
RETURN node.id AS id
"""


def _write(memory: Memory, user: str, vectors: np.ndarray) -> None:
    drafts = [
        FactDraft(
            id=f"f{i}",
            text=f"vector fact number {i}",
            embedding=v.tolist(),
            valid_from=NOW,
            valid_to=NOW.replace(year=2027) if i == 0 else None,
        )
        for i, v in enumerate(vectors)
    ]
    memory.remember_many(drafts, user_id=user, observed_at=NOW)


def _stored(driver: Driver, user: str) -> list[dict[str, object]]:
    return [r.data() for r in driver.execute_query(_STORED, user_id=user)[0]]


def _without_bytes(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in r.items() if k != "packed"} for r in rows]


def test_bytes_and_float_list_store_the_same_vector(memory: Memory, driver: Driver) -> None:
    """Users in the vector index: through the plugin the float array comes from the
    bytes (which stay, for the exact scan), without it from the list (no bytes)."""
    store = memory.store
    assert store._vector_set_available(), f"{VECTOR_SET_PROCEDURE} is not on the test server"
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((3, memory.config.embedding_dim))
    users = {kind: f"vbytes-{kind}-{uuid.uuid4().hex[:8]}" for kind in ("bytes", "list")}
    min_facts = store.vector_index_min_facts
    store.vector_index_min_facts = 0  # every user's facts go into the vector index
    try:
        _write(memory, users["bytes"], vectors)
        store._vector_set = False  # as on a server without the plugin (Aura)
        try:
            _write(memory, users["list"], vectors)
        finally:
            store._vector_set = None
            store.vector_index_min_facts = min_facts
        got = {kind: _stored(driver, user) for kind, user in users.items()}
        assert len(got["bytes"]) == 3
        # values, times, type: all the same
        assert _without_bytes(got["bytes"]) == _without_bytes(got["list"])
        assert got["bytes"][0]["valid_to"] is not None and got["bytes"][1]["valid_to"] is None
        assert {r["type"] for r in got["bytes"]} == {"LIST<FLOAT NOT NULL> NOT NULL"}
        assert [r["packed"] for r in got["bytes"]] == [packed(v) for v in vectors]
        assert [r["packed"] for r in got["list"]] == [None] * 3
        for kind, user in users.items():
            found = driver.execute_query(_INDEXED, vector=vectors[1].tolist(), user_id=user)[0]
            assert "f1" in [r["id"] for r in found], kind
    finally:
        for user in users.values():
            memory.erase_user(user)


def test_a_small_users_vector_is_stored_once_and_unpacked_for_a_server_without_the_plugin(
    memory: Memory, driver: Driver
) -> None:
    """Outside the vector index, the plugin's write keeps the bytes alone (1,536 bytes
    at 384 d, not twice that). On a server without the plugin the store gives such facts
    the float array first, and plain Cypher then finds what the procedure finds."""
    store = memory.store
    assert store._vector_set_available(), f"{VECTOR_SET_PROCEDURE} is not on the test server"
    vectors = np.random.default_rng(8).standard_normal((3, memory.config.embedding_dim))
    user = f"vbytes-once-{uuid.uuid4().hex[:8]}"
    try:
        _write(memory, user, vectors)
        rows = _stored(driver, user)
        assert [r["embedding"] for r in rows] == [None] * 3
        assert [r["packed"] for r in rows] == [packed(v) for v in vectors]
        assert [r["bytes_only"] for r in rows] == [True] * 3

        assert store.unpack_vectors() >= 3  # and any other test's bytes-only facts
        assert store.unpack_vectors() == 0
        rows = _stored(driver, user)
        assert [packed(r["embedding"]) for r in rows] == [packed(v) for v in vectors]
        assert [r["bytes_only"] for r in rows] == [False] * 3
        query = vectors[2].tolist()
        found = {
            native: FactSearch(driver, native_topk=native)
            .candidates(
                Question(
                    user, vector=query, lucene=None, entity_grams=[], mode="history",
                    now=NOW, k_dense=3,
                ),
                strategy="exact",
            )
            .rows
            for native in (True, False)
        }  # fmt: skip
        assert [r.id for r in found[False]] == [r.id for r in found[True]]
        assert found[True][0].id == "f2"
    finally:
        memory.erase_user(user)


def test_an_import_stores_the_same_vector_as_bytes_or_as_a_float_list(
    memory: Memory, driver: Driver
) -> None:
    """Another memory's facts (``import_facts``, e.g. from Graphiti) take the same two
    paths: bytes alone through the plugin, a float list alone without it; the same
    values."""
    from hmem.graph.imported import ImportedFact

    store = memory.store
    assert store._vector_set_available(), f"{VECTOR_SET_PROCEDURE} is not on the test server"
    vectors = np.random.default_rng(6).standard_normal((3, memory.config.embedding_dim))
    facts = [
        ImportedFact(
            id=f"f{i}",
            text=f"imported fact number {i}",
            valid_from=NOW,
            known_from=NOW,
            embedding=v.tolist(),
        )
        for i, v in enumerate(vectors)
    ]
    users = {kind: f"vbytes-imp-{kind}-{uuid.uuid4().hex[:8]}" for kind in ("bytes", "list")}
    try:
        assert store.import_facts(users["bytes"], facts)["facts"] == 3
        store._vector_set = False  # as on a server without the plugin (Aura)
        try:
            assert store.import_facts(users["list"], facts)["facts"] == 3
        finally:
            store._vector_set = None
        got = {kind: _stored(driver, user) for kind, user in users.items()}
        assert len(got["bytes"]) == 3
        assert [r["embedding"] for r in got["bytes"]] == [None] * 3
        assert [r["bytes_only"] for r in got["bytes"]] == [True] * 3
        assert [r["packed"] for r in got["list"]] == [None] * 3
        assert [r["bytes_only"] for r in got["list"]] == [False] * 3
        assert [r["packed"] for r in got["bytes"]] == [packed(r["embedding"]) for r in got["list"]]
        assert {r["type"] for r in got["list"]} == {"LIST<FLOAT NOT NULL> NOT NULL"}
    finally:
        for user in users.values():
            memory.erase_user(user)


def test_a_server_that_lost_the_plugin_is_noted_and_the_work_runs_again_plain(
    memory: Memory, driver: Driver
) -> None:
    """What the server says when a procedure is gone (restarted without hmem's plugin):
    the store stops using it and runs the same work in plain Cypher, once; any other
    error is the caller's."""
    store = memory.store
    assert store._vector_set_available()
    asked: list[bool] = []

    def attempt(plugin: bool) -> int:
        asked.append(plugin)
        query = "CALL hmem.vector.gone_for_this_test()" if plugin else "RETURN 1 AS one"
        one: int = driver.execute_query(query)[0][0]["one"]
        return one

    try:
        assert store._with_plugin(attempt) == 1
        assert asked == [True, False]
        assert store._vector_set is False
        assert store._with_plugin(attempt) == 1  # plain from now on
        assert asked == [True, False, False]
    finally:
        store._vector_set = None
