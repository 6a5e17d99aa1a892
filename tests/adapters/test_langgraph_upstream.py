"""LangGraph's own store tests, run against ``HmemStore`` (nothing of them is vendored).

The backend-agnostic tests live in langgraph-checkpoint-sqlite's ``tests/test_store.py``
(its sdist on PyPI ships them; langgraph-checkpoint's wheel ships none, and
langgraph-checkpoint-conformance covers checkpointers only). scripts/test-adapters
downloads that sdist with pip and points HMEM_LANGGRAPH_UPSTREAM_TESTS at the file;
each test that takes a ``store`` and asserts only the BaseStore contract is called here
with an ``HmemStore`` bound to a fresh user (so any namespace is that user's). The ones
left out, and why, are in ``NOT_APPLICABLE``.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import pytest

from hmem import Memory
from hmem.faces.adapters.langgraph import HmemStore

UPSTREAM = os.environ.get("HMEM_LANGGRAPH_UPSTREAM_TESTS", "")

APPLICABLE = [
    "test_batch_order",
    "test_batch_get_ops",
    "test_batch_put_ops",
    "test_batch_search_ops",
    "test_batch_list_namespaces_ops",
    "test_sql_injection_filter_values",
    "test_numeric_filter_safety",
    "test_boolean_filter_safety",
    "test_filter_keys_with_hyphens_and_digits",
    "test_search_namespace_segment_boundary",
    "test_search_namespace_wildcard_chars_are_literal",
    "test_search_namespace_is_case_sensitive",
    "test_list_namespaces_segment_boundary",
    "test_search_empty_prefix_is_unconstrained",
    "test_namespace_labels_with_trailing_newline",
    "test_list_namespaces_metacharacter_labels",
    "test_batch_rejects_invalid_namespace_labels",
    "test_batch_allows_empty_search_prefix_and_listing_wildcards",
]
NOT_APPLICABLE = {
    "test_sql_injection_vulnerability": "expects SQLite's 'Invalid filter key' ValueError for "
    "a key holding SQL; hmem filters values in Python, so such a key just matches nothing",
    "test_vector_*, test_scores, test_embed_with_path*, test_non_ascii, "
    "test_basic_store_operations, test_list_namespaces_operations, test_search_items": "build "
    "their own SqliteStore with an `index` (a test embedding function and SQLite's vector "
    "distances); hmem embeds with its own model server-side and ranks by its hybrid score",
    "TestSqliteStore.*, test_nonnull_migrations, test_escape_glob_literal, "
    "test_namespace_match_pattern, test_list_namespaces_prefix_uses_indexable_condition": (
        "SQLite internals (its own connection, migrations, glob escaping, SQL plans)"
    ),
}


def _load() -> ModuleType | None:
    if not UPSTREAM or not os.path.exists(UPSTREAM):
        return None
    spec = importlib.util.spec_from_file_location("langgraph_upstream_test_store", UPSTREAM)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _grid(argnames: str | Sequence[str], argvalues: Sequence[Any]) -> list[dict[str, Any]]:
    """One ``parametrize`` mark's calls, as keyword arguments."""
    names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else argnames
    grid = []
    for values in argvalues:
        values = values.values if hasattr(values, "values") else values
        grid.append(dict(zip(names, values if len(names) > 1 else (values,), strict=True)))
    return grid


def _cases(module: ModuleType | None) -> list[Any]:
    """Each applicable test, expanded over its own ``parametrize`` marks."""
    if module is None:
        return [
            pytest.param(
                "",
                {},
                marks=pytest.mark.skip(
                    reason="HMEM_LANGGRAPH_UPSTREAM_TESTS unset: scripts/test-adapters fetches them"
                ),
            )
        ]
    cases = []
    for name in APPLICABLE:
        marks = getattr(getattr(module, name), "pytestmark", [])
        grids = [_grid(m.args[0], m.args[1]) for m in marks if m.name == "parametrize"]
        for number, combo in enumerate(itertools.product(*grids)):
            kwargs = {k: v for part in combo for k, v in part.items()}
            cases.append(pytest.param(name, kwargs, id=f"{name}-{number}" if grids else name))
    return cases


UPSTREAM_MODULE = _load()


@pytest.fixture
def store(memory: Memory, user_id: str) -> HmemStore:
    return HmemStore(memory, user_id=user_id)


@pytest.mark.parametrize(("name", "kwargs"), _cases(UPSTREAM_MODULE))
def test_upstream(store: HmemStore, name: str, kwargs: dict[str, Any]) -> None:
    test: Callable[..., Any] = getattr(UPSTREAM_MODULE, name)
    test(store, **kwargs)
