"""A real Neo4j for integration tests.

``scripts/test`` starts a dedicated server and sets ``HMEM_NEO4J_*`` and
``HMEM_REQUIRE_NEO4J=1``; then an unreachable server fails the run. Run bare, without a
server, these tests skip and say why.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from neo4j import Driver, GraphDatabase

from hmem import Config, Memory
from hmem.memory import resolve_password
from tests.integration._services import unavailable
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server


@pytest.fixture(scope="session")
def config() -> Config:
    return Config()


@pytest.fixture
def redis_url() -> str:
    """The Redis ``scripts/test`` started (``scripts/redis start``)."""
    url = os.environ.get("HMEM_TEST_REDIS_URL")
    if not url:
        unavailable(
            "no HMEM_TEST_REDIS_URL; scripts/test starts Redis (scripts/redis start)",
            required="HMEM_REQUIRE_REDIS",
        )
    return url


@pytest.fixture(scope="session")
def driver(config: Config) -> Iterator[Driver]:
    try:
        password = resolve_password(config)
        drv = GraphDatabase.driver(
            config.neo4j_uri,
            auth=(config.neo4j_user, password),
            notifications_min_severity="OFF",
        )
        drv.verify_connectivity()
    except Exception as exc:
        unavailable(
            f"no Neo4j at {config.neo4j_uri} ({exc}); run `make test`, or start one with "
            "`hmem neo4j start` and set HMEM_NEO4J_* accordingly",
            required="HMEM_REQUIRE_NEO4J",
        )
    yield drv
    drv.close()


@pytest.fixture(scope="session")
def memory(config: Config, driver: Driver) -> Memory:
    mem = Memory(config, driver=driver)
    mem.init_schema()
    return mem


@pytest.fixture
def user_id(memory: Memory) -> Iterator[str]:
    """A fresh user per test: tests isolate themselves by user, never by wiping the DB."""
    uid = f"test-{uuid.uuid4().hex[:12]}"
    yield uid
    memory.erase_user(uid)


@pytest.fixture
def other_user(memory: Memory) -> Iterator[str]:
    uid = f"other-{uuid.uuid4().hex[:12]}"
    yield uid
    memory.erase_user(uid)


@pytest.fixture(scope="module")
def server(
    config: Config, memory: Memory, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """A real `hmem serve` (uvicorn) on this module's own queue, over the test Neo4j."""
    config = config.model_copy(
        update={"queue_path": tmp_path_factory.mktemp("queue") / "queue.sqlite3"}
    )
    with live_server(config) as running:
        yield running


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    """A fresh API tenant with its key, removed after the test."""
    with fresh_tenant(driver, memory) as t:
        yield t
