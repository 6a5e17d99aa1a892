"""The adapters' tests run in each framework's own venv (scripts/test-adapters sets
HMEM_ADAPTER_TESTS=1); the main suite, whose venv has no framework, collects none.

The integration fixtures (a real Neo4j: ``config``, ``driver``, ``memory``, ``user_id``,
``other_user``) are the integration suite's own; ``mem`` is a Memory whose extraction
model is the fake OpenAI server (the session-story tests of the frameworks that write
through ``add``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from hmem import Config, Memory
from tests.adapters import _session_story as story
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.conftest import (  # noqa: F401  (fixtures)
    config,
    driver,
    memory,
    other_user,
    user_id,
)

collect_ignore_glob = (
    [] if os.environ.get("HMEM_ADAPTER_TESTS") == "1" else ["test_*.py", "upstream"]
)


@pytest.fixture
def mem(
    config: Config,  # noqa: F811  (the fixture imported above)
    driver: Driver,  # noqa: F811
    fake_openai: FakeOpenAIServer,
    tmp_path: Path,
) -> Iterator[Memory]:
    modelled = Memory(
        story.model_config(config, fake_openai, tmp_path / "q.sqlite3"), driver=driver
    )
    yield modelled
    modelled.shutdown()
