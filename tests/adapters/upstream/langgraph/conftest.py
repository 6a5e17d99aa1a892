"""LangGraph's own store tests (vendored unchanged, see UPSTREAM.md), run on ``HmemStore``.

The upstream files build their store in their own fixtures and helpers, by name:
``InMemoryStore(index=...)`` (langgraph-checkpoint), ``SqliteStore.from_conn_string(conn,
index=..., ttl=...)`` and ``AsyncSqliteStore.from_conn_string(...)``
(langgraph-checkpoint-sqlite). The swap is here, and only here: for each test, those names
in the test's module are bound to classes that build hmem's store instead
(``HmemStore`` on the embedded ``Memory`` of the integration fixtures, a real Neo4j;
``AsyncHmemStore`` on ``AsyncMemory`` for the async tests), each store on a fresh hmem
user (so separate stores stay separate, as separate SQLite databases do), and every such
user is erased after the test. The connection string is not used.

The upstream test packages import each other as ``tests.embed_test_utils`` and
``tests.test_store``; those two names are given the vendored modules.

``SKIPPED`` lists every upstream test that does not run, with its reason.
"""

from __future__ import annotations

import importlib
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest

from hmem import AsyncMemory, Memory
from hmem.faces.adapters.langgraph import AsyncHmemStore, HmemStore

_HERE = __name__.rsplit(".", 1)[0]
sys.modules.setdefault(
    "tests.embed_test_utils", importlib.import_module(f"{_HERE}.checkpoint.embed_test_utils")
)
sys.modules.setdefault("tests.test_store", importlib.import_module(f"{_HERE}.sqlite.test_store"))

# test (its name, or module::name) -> why it does not run against hmem's store
SKIPPED: dict[str, str] = {
    # the reference implementation's internals, not the BaseStore interface
    "sqlite/test_store.py::test_nonnull_migrations": "SqliteStore.MIGRATIONS: SQLite's own "
    "schema migrations (hmem's schema is Memory.init_schema)",
    "sqlite/test_store.py::test_escape_glob_literal": "a private helper of SqliteStore "
    "(_escape_glob_literal, SQLite GLOB escaping)",
    "sqlite/test_store.py::test_namespace_match_pattern": "a private helper of SqliteStore "
    "(_namespace_match_pattern, SQLite GLOB patterns)",
    "sqlite/test_store.py::test_list_namespaces_prefix_uses_indexable_condition": "the SQL "
    "that SqliteStore's private BaseSqliteStore generates (its query plan)",
    "sqlite/test_store.py::test_vector_store_initialization": "after its index-config "
    "checks (which hmem's store passes: test_vector_store_initialization of "
    "checkpoint/test_store.py and sqlite/test_async_store.py run), it opens SqliteStore's "
    "own connection (store.conn) to look for its vector tables",
}


def _skip_reason(item: pytest.Item) -> str | None:
    path = item.path.relative_to(item.path.parents[1]).as_posix()
    name = getattr(item, "originalname", item.name)
    for key in (f"{path}::{name}", name):
        if key in SKIPPED:
            return SKIPPED[key]
    cls = item.cls.__name__ if getattr(item, "cls", None) else None
    if cls and f"{path}::{cls}" in SKIPPED:
        return SKIPPED[f"{path}::{cls}"]
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE.replace(".", "/") in item.path.as_posix() and (reason := _skip_reason(item)):
            item.add_marker(pytest.mark.skip(reason=reason))


class _Stores:
    """The classes the upstream names are bound to, for one test."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.users: list[str] = []

    def user(self) -> str:
        uid = f"lg-upstream-{uuid.uuid4().hex[:12]}"
        self.users.append(uid)
        return uid

    def classes(self) -> dict[str, Any]:
        stores = self

        class InMemoryStore(HmemStore):  # langgraph.store.memory.InMemoryStore(index=...)
            __slots__ = ()

            def __init__(self, *, index: Any = None) -> None:
                super().__init__(stores.memory, user_id=stores.user(), index=index)

        class SqliteStore(HmemStore):  # SqliteStore.from_conn_string(conn, index=, ttl=)
            __slots__ = ()

            @classmethod
            @contextmanager
            def from_conn_string(
                cls, conn_string: str, *, index: Any = None, ttl: Any = None
            ) -> Iterator[HmemStore]:
                store = HmemStore(stores.memory, user_id=stores.user(), index=index, ttl=ttl)
                try:
                    yield store
                finally:
                    store.stop_ttl_sweeper()

        class AsyncSqliteStore(AsyncHmemStore):  # AsyncSqliteStore.from_conn_string(...)
            __slots__ = ()

            @classmethod
            @asynccontextmanager
            async def from_conn_string(
                cls, conn_string: str, *, index: Any = None, ttl: Any = None
            ) -> AsyncIterator[AsyncHmemStore]:
                backend = AsyncMemory(stores.memory)  # not shut down: the Memory is shared
                store = AsyncHmemStore(backend, user_id=stores.user(), index=index, ttl=ttl)
                try:
                    yield store
                finally:
                    await store.stop_ttl_sweeper()

        return {
            "InMemoryStore": InMemoryStore,
            "SqliteStore": SqliteStore,
            "AsyncSqliteStore": AsyncSqliteStore,
        }


@pytest.fixture(autouse=True)
def _hmem_store(request: pytest.FixtureRequest, memory: Memory) -> Iterator[None]:
    """Bind the upstream module's store names to hmem's store for this test."""
    module = request.module
    stores = _Stores(memory)
    saved: dict[str, Any] = {}
    for name, cls in stores.classes().items():
        if name in vars(module):
            saved[name] = vars(module)[name]
            setattr(module, name, cls)
    try:
        yield
    finally:
        for name, original in saved.items():
            setattr(module, name, original)
        for uid in stores.users:
            memory.erase_user(uid)
