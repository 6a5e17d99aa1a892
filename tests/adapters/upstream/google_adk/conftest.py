"""hmem's fixture for Google ADK's own memory-service tests (see UPSTREAM.md).

The upstream file builds ``InMemoryMemoryService()`` in every test; here that name, in
the test module only, builds ``HmemMemoryService`` on one embedded hmem (a real Neo4j,
the local MiniLM model when the checkout has it). Upstream's fixed user ids
(``test-user``, ``other-user/user``, ...) go through the service's documented mapping
(``user_name``), prefixed with one fresh run id per test so that tests never see each
other's memories; every user a test touched is erased after it.

Skipped upstream tests, each with its reason (``SKIPPED``): only those that read
``InMemoryMemoryService``'s private ``_session_events`` dict.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.faces.adapters.google_adk import HmemMemoryService, user_name
from tests.integration.conftest import config, driver  # noqa: F401  (fixtures)

PRIVATE = (
    "reads InMemoryMemoryService's private _session_events dict (the reference's own "
    "storage); what it checks through the interface (events without content left out, "
    "an event id written once) is pinned by tests/adapters/test_google_adk.py"
)
SKIPPED = {
    "test_add_session_to_memory": PRIVATE,
    "test_add_events_to_memory_with_explicit_events": PRIVATE,
    "test_add_events_to_memory_without_session_id_uses_default_bucket": PRIVATE,
    "test_add_events_to_memory_alias_is_supported": PRIVATE,
    "test_add_events_to_memory_appends_without_replacing": PRIVATE,
    "test_add_events_to_memory_deduplicates_event_ids": PRIVATE,
    "test_add_session_with_no_events_to_memory": PRIVATE,
}


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    """Upstream runs pytest-asyncio in auto mode: its async tests carry no marker."""
    marked = any(m.name == "asyncio" for m in getattr(obj, "pytestmark", []))
    if name.startswith("test") and inspect.iscoroutinefunction(obj) and not marked:
        pytest.mark.asyncio(obj)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        name = getattr(item, "originalname", item.name)
        if name in SKIPPED:
            item.add_marker(pytest.mark.skip(reason=SKIPPED[name]))
        # upstream runs pytest-asyncio in auto mode: its async tests need no marker


def _embedder() -> Any:
    from tests.integration._recall_fixtures import MODEL

    if not MODEL.is_dir():
        return None  # hmem's search is then lexical only: ADK's word rule needs no more
    from hmem.extract.local_embed import LocalEmbeddings

    return LocalEmbeddings(model_dir=MODEL, threads=1, expected_dim=384)


@pytest.fixture(scope="session")
def upstream_memory(config: Config, driver: Driver) -> Iterator[Memory]:  # noqa: F811
    embedder = _embedder()
    settings = Config(**{**config.model_dump(), "embed_model_check": False})
    memory = Memory(settings, driver=driver, embedder=embedder)
    memory.init_schema()
    warm = f"warm-{uuid.uuid4().hex[:10]}"  # the first write and search load the models
    memory.remember("A first memory.", user_id=warm, infer=False)
    memory.search("first", user_id=warm)
    memory.erase_user(warm)
    yield memory
    memory.shutdown()


@pytest.fixture(autouse=True)
def hmem_memory_service(
    request: pytest.FixtureRequest, upstream_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """``InMemoryMemoryService()`` in the upstream module builds hmem's service."""
    run = f"adk{uuid.uuid4().hex[:10]}-"
    users: set[str] = set()

    def user_of(app_name: str, user_id: str) -> str:
        name = run + user_name(user_id)
        users.add(name)
        return name

    def build() -> HmemMemoryService:
        # recall is time-boxed (fail open); on a CI runner under load a search of this
        # store can take seconds: the box is wide here, its own test pins it narrow
        return HmemMemoryService(upstream_memory, user_of=user_of, recall_timeout=120)

    monkeypatch.setattr(request.module, "InMemoryMemoryService", build)
    yield
    for name in users:
        upstream_memory.erase_user(name)
