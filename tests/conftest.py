"""Shared pytest setup. Integration tests live in tests/integration and need Neo4j."""

from __future__ import annotations

import os

import pytest

# Config() defaults to the local embedder ('auto'); tests pick their embedder themselves
# (the shared MiniLM folder, or the fake OpenAI server), so a bare Config() loads none,
# in this process and in the servers the tests start.
os.environ.setdefault("HMEM_EMBED_PROVIDER", "none")

pytest_plugins = ["tests.fakes.fixtures"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/tests/integration/" in str(item.path):
            item.add_marker(pytest.mark.integration)
