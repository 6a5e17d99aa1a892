"""hmem in the OpenAI Agents SDK's ``Runner`` (its own ``ScriptedModel``), on a real Neo4j
and over HTTP: tools write, the input filter recalls, the session forwards to ``add``."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, set_tracing_disabled
from agents.exceptions import UserError
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call
from neo4j import Driver

from hmem import AsyncClient, Config, Memory
from hmem.faces.adapters.openai_agents import HmemSession, hmem_input_filter, hmem_tools
from tests.adapters import _session_story as session_story
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
    config = RunConfig(
        call_model_input_filter=hmem_input_filter(backend, recall_timeout=session_story.SLOW_CI)
    )
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
    config = RunConfig(
        call_model_input_filter=hmem_input_filter(memory, recall_timeout=session_story.SLOW_CI)
    )
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


def _said(memory: Memory, user: str) -> list[str]:
    return sorted(f.text for f in memory.facts(user_id=user))


def test_a_session_without_a_model_runs_and_remembers_the_users_statements(
    memory: Memory, user_id: str, tmp_path: Path
) -> None:
    """Defect 3 (issue 46): add_items raised ModelNotConfiguredError after the inner
    session had stored the item, so every run with the session failed."""
    assert not memory.extraction_configured
    inner = SQLiteSession("s-nomodel", str(tmp_path / "history.sqlite3"))
    session = HmemSession(inner, memory, user_id=user_id)  # defaults: background=True
    agent = Agent(name="a", model=ScriptedModel([[assistant_message("Paris, noted.")]]))
    result = asyncio.run(Runner.run(agent, "I moved to Paris in November.", session=session))
    assert result.final_output == "Paris, noted."
    items = asyncio.run(session.get_items())
    assert items[0] == {"role": "user", "content": "I moved to Paris in November."}
    assert [i.get("role") for i in items] == ["user", "assistant"]
    # model-free: the user's statement as said; the assistant's words and questions are not
    asyncio.run(session.add_items([{"role": "user", "content": "Where do I live?"}]))
    assert _said(memory, user_id) == ["I moved to Paris in November."]
    assert session.close() is None  # SQLiteSession's close is sync: closed, hmem stays open
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(inner.add_items([]))
    assert _said(memory, user_id) == ["I moved to Paris in November."]


def test_the_run_contexts_user_is_the_sessions_user(
    memory: Memory, user_id: str, other_user: str, tmp_path: Path
) -> None:
    db = str(tmp_path / "history.sqlite3")
    shared = HmemSession(SQLiteSession("s-ctx", db), memory)  # no user: the run's
    agent = Agent(name="a", model=ScriptedModel([[assistant_message("Noted.")]]))
    asyncio.run(
        Runner.run(agent, "I play the cello.", session=shared, context={"user_id": user_id})
    )
    assert _said(memory, user_id) == ["I play the cello."]
    assert _said(memory, other_user) == []

    # a session made for one user refuses a run of another: nothing stored anywhere
    mine = HmemSession(SQLiteSession("s-mine", db), memory, user_id=user_id)
    agent = Agent(name="a", model=ScriptedModel([[assistant_message("Noted.")]]))
    with pytest.raises(UserError, match="belongs to user"):
        asyncio.run(
            Runner.run(agent, "I hate cellos.", session=mine, context={"user_id": other_user})
        )
    assert asyncio.run(mine.get_items()) == []
    assert _said(memory, other_user) == [] and _said(memory, user_id) == ["I play the cello."]

    # no user anywhere: refused before anything is stored
    nobody = HmemSession(SQLiteSession("s-nobody", db), memory)
    with pytest.raises(UserError, match="needs the session's user"):
        asyncio.run(nobody.add_items([{"role": "user", "content": "I like tea."}]))
    assert asyncio.run(nobody.get_items()) == []


def test_a_secret_is_not_remembered_and_the_run_goes_on(
    memory: Memory, user_id: str, tmp_path: Path
) -> None:
    session = HmemSession(
        SQLiteSession("s-secret", str(tmp_path / "h.sqlite3")), memory, user_id=user_id
    )
    items: list[Any] = [
        {"role": "user", "content": "My card is 4111 1111 1111 1111."},
        {"role": "user", "content": "I live in Lyon."},
    ]
    asyncio.run(session.add_items(items))
    assert asyncio.run(session.get_items()) == items  # the history is the app's, as given
    assert _said(memory, user_id) == ["I live in Lyon."]
    assert "4111" not in json.dumps(memory.export(user_id).model_dump(mode="json"))


def test_erasure_and_isolation_hold_through_the_session(
    memory: Memory, user_id: str, other_user: str, tmp_path: Path
) -> None:
    db = str(tmp_path / "h.sqlite3")
    mine = HmemSession(SQLiteSession("s-1", db), memory, user_id=user_id)
    theirs = HmemSession(
        SQLiteSession("s-1", str(tmp_path / "other.sqlite3")), memory, user_id=other_user
    )
    asyncio.run(mine.add_items([{"role": "user", "content": "I work at Acme in Oslo."}]))
    asyncio.run(theirs.add_items([{"role": "user", "content": "I work at Globex in Rome."}]))
    found = memory.search("Where does the user work, Acme in Oslo?", user_id=other_user)
    assert found.hits and {h.fact.user_id for h in found.hits} == {other_user}
    assert all("Acme" not in h.fact.text for h in found.hits)
    # clearing the history erases no memory; hmem's erasure erases it
    asyncio.run(mine.clear_session())
    assert asyncio.run(mine.get_items()) == []
    assert _said(memory, user_id) == ["I work at Acme in Oslo."]
    memory.erase_user(user_id)
    assert _said(memory, user_id) == []
    assert _said(memory, other_user) == ["I work at Globex in Rome."]


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


def test_hmem_down_or_hanging_the_run_goes_on_without_memories(
    config: Config, fake_openai: FakeOpenAIServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The input filter's recall is time-boxed and fails open. Neo4j unreachable
    (nothing listens at its address): the model's input is the run's own, the session
    keeps the history and queues the turns (background=True), the run answers. An API
    that accepts and never answers: the filter gives up after recall_timeout."""
    down = session_story.neo4j_down(config, fake_openai, tmp_path / "q.sqlite3")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()

    async def run() -> None:
        with Memory(down) as memory:
            model = ScriptedModel([[assistant_message("Noted.")]])
            session = HmemSession(SQLiteSession("s-down", str(tmp_path / "h.sqlite3")), memory)
            config = RunConfig(call_model_input_filter=hmem_input_filter(memory))
            result = await Runner.run(
                Agent(name="a", model=model),
                "I moved to Paris.",
                session=session,
                context={"user_id": "maya"},
                run_config=config,
            )
            assert result.final_output == "Noted."
            assert model.last_call is not None
            assert model.last_call.input == [{"role": "user", "content": "I moved to Paris."}]
            assert memory.ingest.queue.pending() == 1
        port = silent.getsockname()[1]
        async with AsyncClient(f"http://127.0.0.1:{port}", api_key="hmem_x") as hanging:
            model = ScriptedModel([[assistant_message("Hello.")]])
            config = RunConfig(
                call_model_input_filter=hmem_input_filter(hanging, recall_timeout=0.5)
            )
            started = time.monotonic()
            result = await Runner.run(
                Agent(name="a", model=model), "Hi.", context={"user_id": "maya"}, run_config=config
            )
            assert result.final_output == "Hello." and time.monotonic() - started < 10

    try:
        with caplog.at_level(logging.WARNING):
            asyncio.run(run())
    finally:
        silent.close()
    failed = [r.message for r in caplog.records if "hmem recall failed" in r.message]
    assert len(failed) == 2 and "StoreUnavailableError" in failed[0]
