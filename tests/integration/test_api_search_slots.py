"""``api_search_concurrency``: searches beyond the slots wait their turn and answer what
they answer one at a time; a refused search holds no slot."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from tests.integration.test_api_fixtures import Tenant, fresh_tenant, live_server

FACTS = (
    "Maya has a cat named Miso.",
    "Maya lives in Lisbon.",
    "Maya works as a nurse at the city hospital.",
    "Maya runs every Sunday morning.",
)
QUESTIONS = ("What pets does Maya have?", "Where does Maya live?", "What is Maya's job?",
             "Does Maya run?", "Who is Maya?", "Miso?")  # fmt: skip


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory) as t:
        yield t


def _ids(body: dict[str, Any]) -> set[str]:
    return {hit["fact"]["id"] for hit in body["hits"]}


async def _all_at_once(
    url: str, key: str, paths: list[str], other: str
) -> tuple[list[dict[str, Any]], int]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client:
        asked = [
            client.post(p, json={"query": q}) for p, q in zip(paths, QUESTIONS * 2, strict=True)
        ]
        refused = client.post(f"/v1/users/{other}/search", json={"query": "Who?"})
        answers = await asyncio.gather(*asked, refused)
    for answer in answers[:-1]:
        answer.raise_for_status()
    return [a.json() for a in answers[:-1]], answers[-1].status_code


def test_searches_beyond_the_slots_answer_the_same(config: Config, tenant: Tenant) -> None:
    maya, other = tenant.user("maya"), tenant.user("other")
    for text in FACTS:
        tenant.memory.remember(text, user_id=tenant.stored(maya))
    key = tenant.key_for(maya)  # reaches maya only: a search of `other` is refused
    one_slot = config.model_copy(update={"api_search_concurrency": 1})
    path = f"/v1/users/{maya}/search"
    with live_server(one_slot) as server:
        slots = server.app.state.search_slots
        assert slots.total_tokens == 1
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}) as c:
            alone = {q: _ids(c.post(path, json={"query": q}).json()) for q in QUESTIONS}
        together, refused = asyncio.run(
            _all_at_once(server.url, key, [path] * 2 * len(QUESTIONS), other)
        )
        assert slots.borrowed_tokens == 0
    assert refused == 403
    assert [_ids(body) for body in together] == [alone[q] for q in QUESTIONS * 2]
    assert all(body["user_id"] == maya for body in together)
    assert any(alone.values())
