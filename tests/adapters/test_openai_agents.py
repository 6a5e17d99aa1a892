"""hmem in the OpenAI Agents SDK's ``Runner`` (its own ``ScriptedModel``), on a real Neo4j
and over HTTP: tools write, the input filter recalls, the session forwards to ``add``."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, set_tracing_disabled
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call
from neo4j import Driver

from hmem import AsyncClient, Config, Memory
from hmem.faces.adapters.openai_agents import HmemSession, hmem_input_filter, hmem_tools
from tests.adapters import _story as story
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server

set_tracing_disabled(True)  # no trace export from an offline test


def _call(name: str, **args: Any) -> list[Any]:
    return [function_call(name, args, call_id=f"call-{name}-{len(args)}")]


def _supersede_london(call: ModelCall) -> list[Any]:
    """Session 1's second step: the London fact's id from recall's output."""
    outputs = [i["output"] for i in call.input if i.get("type") == "function_call_output"]
    london = re.findall(r"\[([^\]]+)\] Maya lives in London", str(outputs[-1]))
    return _call("remember", text=story.PARIS, valid_from=story.MOVED, supersedes=london)


def _model() -> ScriptedModel:
    return ScriptedModel(
        [
            _call("remember", text=story.LONDON, valid_from=story.LONDON_FROM),
            [assistant_message("Noted.")],
            _call("recall", query="London"),
            ModelStep.respond(_supersede_london),
            [assistant_message("Noted: Paris.")],
            [assistant_message("You lived in London.")],
            [assistant_message("I don't know.")],
        ]
    )


def _seen(call: ModelCall | None) -> str:
    assert call is not None
    return (call.system_instructions or "") + json.dumps(call.input, ensure_ascii=False)


async def _sessions(backend: Memory | AsyncClient, maya: str, other: str) -> tuple[str, str]:
    model = _model()
    agent = Agent(name="assistant", model=model, tools=hmem_tools(backend))
    config = RunConfig(call_model_input_filter=hmem_input_filter(backend))
    for said in (story.SESSION_0, story.SESSION_1, story.SESSION_2):
        await Runner.run(agent, said, context={"user_id": maya}, run_config=config)
    mine = _seen(model.last_call)
    await Runner.run(agent, story.SESSION_2, context={"user_id": other}, run_config=config)
    return mine, _seen(model.last_call)


def test_two_sessions_through_the_runner(memory: Memory, user_id: str, other_user: str) -> None:
    mine, theirs = asyncio.run(_sessions(memory, user_id, other_user))
    story.assert_story(mine)
    assert '"role": "user", "content": "What hmem remembers' in mine  # a user-role item
    story.assert_nothing_of_maya(theirs)
    [paris] = memory.facts(user_id=user_id)
    assert paris.text == story.PARIS and paris.source == "openai-agents"
    chain = memory.history(paris.id, user_id=user_id)
    assert [s.fact.text for s in chain.predecessors] == [story.LONDON]


def test_a_run_without_a_user_fails_before_any_memory_is_read(memory: Memory) -> None:
    agent = Agent(name="a", model=ScriptedModel([[assistant_message("hi")]]))
    config = RunConfig(call_model_input_filter=hmem_input_filter(memory))
    with pytest.raises(ValueError, match="user_id"):
        asyncio.run(Runner.run(agent, "hello", context={}, run_config=config))


def test_the_session_keeps_history_inside_and_forwards_turns_to_add(
    config: Config, user_id: str, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    with_model = Config(  # validated, so the key becomes a secret
        **{
            **config.model_dump(),
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "llm_model": "fake-chat",
            "llm_max_retries": 1,
            "queue_path": tmp_path / "queue.sqlite3",
        }
    )
    extracted = {
        "text": "Maya moved from London to Paris in November 2026.",
        "category": "semantic",
        "importance": 6,
        "event_date": "2026-11-01",
        "entities": [{"name": "Paris", "type": "place"}, {"name": "London", "type": "place"}],
        "relations": [],
    }
    fake_openai.queue_chat({"facts": [extracted]})
    with Memory(with_model) as memory:
        inner = SQLiteSession("s-1", str(tmp_path / "history.sqlite3"))
        session = HmemSession(inner, memory, user_id=user_id, background=False)
        agent = Agent(name="a", model=ScriptedModel([[assistant_message("Paris, noted.")]]))
        asyncio.run(Runner.run(agent, story.SESSION_1, session=session))
        # the history is the inner session's; the turns went to hmem's extractor (which
        # reads the user's messages)
        assert [i.get("role") for i in asyncio.run(inner.get_items())] == ["user", "assistant"]
        sent = json.dumps(fake_openai.chat_requests)
        assert f"USER'S MESSAGES:\\n{story.SESSION_1}" in sent
        [fact] = memory.facts(user_id=user_id)
        assert fact.text == extracted["text"]
        asyncio.run(session.clear_session())
        assert asyncio.run(session.get_items()) == []
        assert memory.facts(user_id=user_id) != []  # clearing history erases no memory


@pytest.fixture(scope="module")
def server(
    config: Config, memory: Memory, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    queue = tmp_path_factory.mktemp("queue") / "queue.sqlite3"
    with live_server(config.model_copy(update={"queue_path": queue})) as running:
        yield running


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory) as t:
        yield t


def test_round_trip_over_http_with_async_client(server: LiveServer, tenant: Tenant) -> None:
    maya, other = tenant.user("maya"), tenant.user("other")

    async def run() -> tuple[str, str]:
        async with AsyncClient(server.url, api_key=tenant.key) as client:
            return await _sessions(client, maya, other)

    mine, theirs = asyncio.run(run())
    story.assert_story(mine)
    story.assert_nothing_of_maya(theirs)
