"""The story every session-shaped adapter test tells (Google ADK, CrewAI, Agent
Framework, AutoGen, LlamaIndex), against a real Neo4j and hmem's real extractor path,
whose language model is the fake OpenAI-compatible server (a real HTTP server).

Earlier, the user said "I've lived in London since May 2024"; session 1 says "I moved
from London to Paris last month"; session 2 asks where the user lived before. The
extractor's scripted replies are what a model would infer from those words: a fact
dated "2024-05", and one dated "last month" that contradicts it. hmem resolves the
dates and closes London, so what the framework's model reads in session 2 has London,
Paris, 2024-05-01 and the first day of last month."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from neo4j import Driver

from hmem import AsyncClient, Config, Memory
from hmem.models import Fact
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server

EARLIER = "I've lived in London since May 2024."
MOVED = "I moved from London to Paris last month."
QUESTION = "Where did I live before?"
LONDON_FACT = "The user lived in London."
PARIS_FACT = "The user moved from London to Paris."


def last_month_start(today: date | None = None) -> date:
    first = (today or datetime.now(UTC).date()).replace(day=1)
    return (first - timedelta(days=1)).replace(day=1)


def expected_dates() -> tuple[str, str]:
    """London's start, and the move (London's end, Paris's start)."""
    return "2024-05-01", last_month_start().isoformat()


SLOW_CI = 120  # recall_timeout in tests: a first search on a loaded CI runner takes seconds
UNREACHABLE_NEO4J = "bolt://127.0.0.1:1"  # nothing listens there: Neo4j down, for real


def neo4j_down(config: Config, fake: FakeOpenAIServer, queue: Path) -> Config:
    """``model_config`` on a Neo4j that is not there (connections refused): a write
    ``add(background=True)`` is queued, every read fails with StoreUnavailableError."""
    return Config(
        **{**model_config(config, fake, queue).model_dump(), "neo4j_uri": UNREACHABLE_NEO4J}
    )


def model_config(config: Config, fake: FakeOpenAIServer, queue: Path) -> Config:
    """hmem with the fake server as its chat model (extraction) and embedder."""
    return Config(
        **{
            **config.model_dump(),
            "llm_base_url": fake.base_url,
            "llm_api_key": FAKE_API_KEY,
            "llm_model": "fake-chat",
            "llm_max_retries": 1,
            "embed_provider": "openai",
            "embed_base_url": fake.base_url,
            "embed_api_key": FAKE_API_KEY,
            "embed_model": "fake-embed",
            "queue_path": queue,
        }
    )


def _fact(text: str, **kw: Any) -> dict[str, Any]:
    return {
        "text": text,
        "category": "semantic",
        "importance": 5,
        "event_date": None,
        "entities": [{"name": "London", "type": "place"}],
        "relations": [],
        **kw,
    }


def _stored(body: dict[str, Any]) -> dict[str, str]:
    """The open facts the extractor's prompt showed, text -> id."""
    prompt = body["messages"][-1]["content"]
    return {text: fid for fid, text in re.findall(r"^- \[(\w+)\] (.*) \(since", prompt, re.M)}


def _moved(body: dict[str, Any]) -> dict[str, Any]:
    london = _stored(body)[LONDON_FACT]
    return {
        "facts": [
            _fact(
                PARIS_FACT,
                event_date="last month",
                entities=[{"name": "London", "type": "place"}, {"name": "Paris", "type": "place"}],
                relations=[{"target_id": london, "relation": "contradicts"}],
            )
        ]
    }


def script_extractor(fake: FakeOpenAIServer) -> None:
    """The extractor's two replies: the earlier session, then the move."""
    fake.queue_chat({"facts": [_fact(LONDON_FACT, event_date="2024-05")]}, _moved)


def extractor_prompts(fake: FakeOpenAIServer) -> list[str]:
    """What hmem's extractor was sent, one prompt per chat call."""
    return [body["messages"][-1]["content"] for body in fake.chat_requests]


def assert_story(model_input: str) -> None:
    """Session 2's model input: both places and both dates."""
    london_from, moved = expected_dates()
    for needle in ("London", "Paris", london_from, moved):
        assert needle in model_input, (needle, model_input)


@contextmanager
def api(
    config: Config, driver: Driver, memory: Memory, fake: FakeOpenAIServer, tmp: Path
) -> Iterator[tuple[LiveServer, Tenant]]:
    """``hmem.api`` on a real uvicorn with the fake model, and a fresh tenant."""
    with (
        live_server(model_config(config, fake, tmp / "api-queue.sqlite3")) as server,
        fresh_tenant(driver, memory) as tenant,
    ):
        yield server, tenant


def over_http(
    config: Config,
    driver: Driver,
    memory: Memory,
    fake: FakeOpenAIServer,
    tmp: Path,
    tell: Callable[[AsyncClient, str, str], Awaitable[None]],
    extracted: Callable[[list[Fact]], list[str]] = lambda facts: [f.text for f in facts],
) -> None:
    """The story told by ``tell(client, user, other)`` through the HTTP API with an
    ``AsyncClient`` (``api``): afterwards the user's one current extracted fact is Paris
    (``extracted``: the texts of the extractor's facts, for an adapter that keeps the
    verbatim turns beside them)."""
    with api(config, driver, memory, fake, tmp) as (server, tenant):
        user, other = tenant.user("maya"), tenant.user("sam")

        async def run() -> None:
            async with AsyncClient(server.url, api_key=tenant.key) as client:
                await tell(client, user, other)
                assert extracted(await client.facts(user_id=user)) == [PARIS_FACT]

        asyncio.run(run())
