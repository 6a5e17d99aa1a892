"""Shared pytest setup. Integration tests live in tests/integration and need Neo4j."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.fakes.fixtures"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/tests/integration/" in str(item.path):
            item.add_marker(pytest.mark.integration)
