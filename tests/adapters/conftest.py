"""The adapters' tests run in each framework's own venv (scripts/test-adapters sets
HMEM_ADAPTER_TESTS=1); the main suite, whose venv has no framework, collects none.

The integration fixtures (a real Neo4j: ``config``, ``driver``, ``memory``, ``user_id``,
``other_user``) are the integration suite's own."""

from __future__ import annotations

import os

from tests.integration.conftest import (  # noqa: F401  (fixtures)
    config,
    driver,
    memory,
    other_user,
    user_id,
)

collect_ignore_glob = [] if os.environ.get("HMEM_ADAPTER_TESTS") == "1" else ["test_*.py"]
