"""Vectors written as float32 bytes through hmem's plugin (``hmem.vector.set``) against
the plain path (a float list through ``db.create.setNodeVectorProperty``): the same
stored values, the same property type, and the vector index sees both."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
from neo4j import Driver

from hmem import Memory
from hmem.graph.store import VECTOR_SET_PROCEDURE
from hmem.models import FactDraft

NOW = datetime(2026, 6, 1, tzinfo=UTC)

_STORED = """
MATCH (f:Fact {user_id: $user_id})
RETURN f.id AS id, f.embedding AS embedding, valueType(f.embedding) AS type,
       f.embedding_f32le AS packed, f.valid_from AS valid_from, f.known_from AS known_from,
       f.valid_to AS valid_to
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


def test_bytes_and_float_list_store_the_same_vector(memory: Memory, driver: Driver) -> None:
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
        stored = {
            kind: driver.execute_query(_STORED, user_id=user)[0] for kind, user in users.items()
        }
        got = {kind: [r.data() for r in records] for kind, records in stored.items()}
        assert len(got["bytes"]) == 3
        assert got["bytes"] == got["list"]  # values, times, bytes, type: all the same
        assert got["bytes"][0]["valid_to"] is not None and got["bytes"][1]["valid_to"] is None
        assert {r["type"] for r in got["bytes"]} == {"LIST<FLOAT NOT NULL> NOT NULL"}
        for kind, user in users.items():
            found = driver.execute_query(_INDEXED, vector=vectors[1].tolist(), user_id=user)[0]
            assert "f1" in [r["id"] for r in found], kind
    finally:
        for user in users.values():
            memory.erase_user(user)


def test_an_import_stores_the_same_vector_as_bytes_or_as_a_float_list(
    memory: Memory, driver: Driver
) -> None:
    """Another memory's facts (``import_facts``, e.g. from Graphiti) take the same two
    paths: bytes through the plugin, a float list without it; the same stored values."""
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
        got = {
            kind: [r.data() for r in driver.execute_query(_STORED, user_id=user)[0]]
            for kind, user in users.items()
        }
        assert len(got["bytes"]) == 3
        assert got["bytes"] == got["list"]
        assert {r["type"] for r in got["bytes"]} == {"LIST<FLOAT NOT NULL> NOT NULL"}
        assert all(r["packed"] is not None for r in got["bytes"])
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
