"""Shared pytest setup. Integration tests live in tests/integration and need Neo4j."""

from __future__ import annotations

import os

import pytest

# Config() defaults to the local embedder ('auto'); tests pick their embedder themselves
# (the shared MiniLM folder, or the fake OpenAI server), so a bare Config() loads none,
# in this process and in the servers the tests start.
os.environ.setdefault("HMEM_EMBED_PROVIDER", "none")
# Tests share one database between several embedders (isolated by user), so the store's
# one-model record is off, except in the test of that record (test_embedding_model.py).
os.environ.setdefault("HMEM_EMBED_MODEL_CHECK", "false")

pytest_plugins = ["tests.fakes.fixtures"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/tests/integration/" in str(item.path):
            item.add_marker(pytest.mark.integration)
