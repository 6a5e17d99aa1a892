"""hmem's fixture for the OpenAI Agents SDK's own session tests (vendored unchanged from
openai-agents 0.24.0, see UPSTREAM.md).

Every ``SQLiteSession(...)`` the upstream tests build becomes
``HmemSession(SQLiteSession(...), memory, user_id=<a fresh user>)`` on the real Neo4j
(embedded hmem, no language model): the history is the SQLite session's, every message
added also goes through hmem's write path (model-free: the user's statements are
remembered as said). The upstream helpers the tests import as ``tests.test_responses``
and ``tests.memory.test_session`` are the vendored files beside this one.

Skipped, each with its reason (``SKIPPED``): the tests that reach into ``SQLiteSession``'s
private attributes (its connection pool, its lock table, raw rows written with its
private connection): internals of the reference implementation, which an ``HmemSession``
(a ``Session`` that wraps any SDK session) does not have.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agents import SQLiteSession

from hmem import Memory
from hmem.faces.adapters.openai_agents import HmemSession

HERE = Path(__file__).parent


def _load(name: str, path: Path) -> types.ModuleType:
    """A vendored upstream file under the module name the upstream tests import it by."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# upstream: tests/test_responses.py and tests/memory/test_session.py (its run_agent_async)
_load("tests.test_responses", HERE / "test_responses.py")
sys.modules.setdefault("tests.memory", types.ModuleType("tests.memory"))
_load("tests.memory.test_session", HERE / "test_session.py")

_PRIVATE = "reads SQLiteSession's private {} (the reference implementation's internals)"
SKIPPED: dict[str, str] = {
    "test_sqlite_session_close_closes_worker_thread_connections": _PRIVATE.format(
        "per-thread connection pool (session._connections)"
    ),
    "test_sqlite_session_reaps_connections_from_exited_worker_threads": _PRIVATE.format(
        "per-thread connection pool (session._connections)"
    ),
    "test_sqlite_session_closes_retired_connections_before_the_next_allocation": _PRIVATE.format(
        "per-thread connection pool (session._connections)"
    ),
    "test_sqlite_session_keeps_connections_of_live_worker_threads": _PRIVATE.format(
        "per-thread connection pool (session._connections)"
    ),
    "test_sqlite_session_pop_item_skips_corrupt_most_recent": _PRIVATE.format(
        "connection (session._locked_connection) to write a corrupt row"
    ),
    "test_sqlite_session_pop_item_returns_none_after_dropping_only_corrupt_rows": _PRIVATE.format(
        "connection (session._locked_connection) to write a corrupt row"
    ),
    "test_sqlite_session_get_items_limit_skips_corrupt_newest_rows": _PRIVATE.format(
        "connection (session._locked_connection) to write a corrupt row"
    ),
    "test_sqlite_session_get_items_session_settings_limit_skips_corrupt_rows": _PRIVATE.format(
        "connection (session._locked_connection) to write a corrupt row"
    ),
    "test_sqlite_session_file_lock_is_shared_across_instances": _PRIVATE.format(
        "per-file lock table (session._lock, SQLiteSession._file_lock_counts)"
    ),
    "test_sqlite_session_failed_clear_session_rolls_back": _PRIVATE.format(
        "connection pool (session._connections)"
    ),
    "test_sqlite_session_failed_pop_item_releases_write_lock": _PRIVATE.format(
        "connection pool (session._connections)"
    ),
    "test_sqlite_session_rollback_failure_evicts_connection": _PRIVATE.format(
        "connection factory (session._get_connection, session._connections_lock)"
    ),
    "test_sqlite_session_close_retries_quarantined_connection": _PRIVATE.format(
        "connection factory (session._get_connection, session._quarantined_connections)"
    ),
    "test_sqlite_session_post_commit_cancellation_propagates_after_known_outcome": (
        _PRIVATE.format("connection factory (session._get_connection, session._connections_lock)")
    ),
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        reason = SKIPPED.get(getattr(item, "originalname", item.name))
        if reason is not None and Path(str(item.fspath)).parent == HERE:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(autouse=True)
def hmem_session(
    request: pytest.FixtureRequest,
    memory: Memory,
    user_id: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., HmemSession]:
    """The swap: the upstream module's ``SQLiteSession`` builds an ``HmemSession``."""

    def build(*args: Any, **kwargs: Any) -> HmemSession:
        return HmemSession(SQLiteSession(*args, **kwargs), memory, user_id=user_id)

    if getattr(request.module, "SQLiteSession", None) is SQLiteSession:
        monkeypatch.setattr(request.module, "SQLiteSession", build)
    return build
