"""Microsoft Agent Framework's own Agent.run with a scripted BaseChatClient and
HmemContextProvider, over hmem on a real Neo4j: embedded and over HTTP."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from agent_framework import Agent, BaseChatClient, ChatResponse, Message
from neo4j import Driver
from neo4j.exceptions import DriverError

from hmem import Config, Memory
from hmem.errors import ValidationError
from hmem.faces.adapters.agent_framework import HEADER, HmemContextProvider, agent_user
from tests.adapters import _session_story as story
from tests.fakes.openai_server import FakeOpenAIServer


class ScriptedClient(BaseChatClient):
    """Answers from a script; keeps every message list it was sent."""

    def __init__(self, replies: Sequence[str]) -> None:
        super().__init__()
        self.replies = list(replies)
        self.seen: list[list[Message]] = []

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        self.seen.append(list(messages))

        async def reply() -> ChatResponse:
            text = self.replies.pop(0) if self.replies else "Noted."
            return ChatResponse(messages=[Message("assistant", [text])])

        return reply()

    def shown(self) -> str:
        return "\n".join(m.text for m in self.seen[-1])


async def tell_the_story(backend: Any, user: str, other: str, fake: FakeOpenAIServer) -> None:
    story.script_extractor(fake)
    provider = HmemContextProvider(backend, user_id=user, recall_timeout=story.SLOW_CI)
    client = ScriptedClient(["Noted."] * 3 + ["Before Paris you lived in London."])
    agent = Agent(client=client, context_providers=[provider])
    await agent.run(story.EARLIER, session=agent.create_session())
    session = agent.create_session()
    await agent.run(story.MOVED, session=session)
    fake.queue_chat({"facts": []})
    await agent.run("Thanks!", session=session)  # the session's history is not re-sent
    prompts = story.extractor_prompts(fake)
    assert len(prompts) == 3 and story.MOVED not in prompts[2]

    fake.queue_chat({"facts": []})  # the question is a turn too
    answer = await agent.run(story.QUESTION, session=agent.create_session())
    assert answer.text == "Before Paris you lived in London."
    story.assert_story(client.shown())
    [block] = [m for m in client.seen[-1] if m.text.startswith(HEADER)]
    assert block.role == "user"

    stranger_client = ScriptedClient(["I don't know."])
    stranger = Agent(
        client=stranger_client,
        context_providers=[
            HmemContextProvider(backend, user_id=other, extract=False, recall_timeout=story.SLOW_CI)
        ],
    )
    await stranger.run(story.QUESTION, session=stranger.create_session())
    assert "London" not in stranger_client.shown() and "Paris" not in stranger_client.shown()


def test_agent_story_embedded(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    asyncio.run(tell_the_story(mem, user_id, other_user, fake_openai))
    assert [f.text for f in mem.facts(user_id=user_id)] == [story.PARIS_FACT]


def test_agent_story_over_http(
    config: Config,
    driver: Driver,
    memory: Memory,
    fake_openai: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    story.over_http(
        config,
        driver,
        memory,
        fake_openai,
        tmp_path,
        lambda c, u, o: tell_the_story(c, u, o, fake_openai),
    )


async def _scoped_and_closed(memory: Memory, user: str, other: str) -> None:
    """Agent scoping, the context prompt, and ``async with`` on one backend."""
    prompt = "## What you know about this customer"
    async with (
        HmemContextProvider(
            memory,
            user_id=user,
            agent_id="travel",
            context_prompt=prompt,
            recall_timeout=story.SLOW_CI,
        ) as travel,
        HmemContextProvider(
            memory, user_id=user, agent_id="billing", recall_timeout=story.SLOW_CI
        ) as billing,
    ):
        assert travel.memory_user == agent_user(user, "travel") == f"{user}.agent-travel"
        travel_client = ScriptedClient(["Noted.", "Window seat, noted."])
        travel_agent = Agent(client=travel_client, context_providers=[travel])
        await travel_agent.run("I prefer window seats.", session=travel_agent.create_session())
        await travel_agent.run("Which seat do I like?", session=travel_agent.create_session())
        [block] = [m for m in travel_client.seen[-1] if m.text.startswith(prompt)]
        assert "I prefer window seats" in block.text and block.role == "user"

        billing_client = ScriptedClient(["I don't know."])
        billing_agent = Agent(client=billing_client, context_providers=[billing])
        await billing_agent.run("Which seat do I like?", session=billing_agent.create_session())
        assert "window seats" not in billing_client.shown()  # another agent's memory
    assert travel.closed and billing.closed
    session = Agent(client=ScriptedClient([]), context_providers=[travel]).create_session()
    with pytest.raises(RuntimeError, match="closed"):
        await Agent(client=ScriptedClient([]), context_providers=[travel]).run(
            "hello", session=session
        )


def test_agent_scoping_context_prompt_and_async_close(
    memory: Memory, user_id: str, other_user: str
) -> None:
    asyncio.run(_scoped_and_closed(memory, user_id, other_user))
    scoped = f"{user_id}.agent-travel"
    assert [f.text for f in memory.facts(user_id=scoped)] == ["I prefer window seats."]
    assert memory.facts(user_id=user_id) == []  # the user's unscoped memory: untouched
    assert memory.facts(user_id=f"{user_id}.agent-billing") == []
    # the backend passed in stays open after the providers closed; erasure is hmem's
    memory.erase_user(scoped)
    assert memory.facts(user_id=scoped) == []
    with pytest.raises(ValidationError):
        agent_user(user_id, "a.b")  # no '.': two (user, agent) pairs never share a user
    with pytest.raises(ValidationError):
        HmemContextProvider(memory, user_id=f"{user_id}.agent-x")


def test_close_backend_shuts_down_only_a_backend_the_provider_owns(config: Config) -> None:
    owned = Memory(config)  # its own driver: shut down, the driver is closed

    async def run() -> None:
        async with HmemContextProvider(owned, user_id="u1", close_backend=True) as provider:
            assert provider.port.backend is owned
        owned.facts(user_id="u1")  # after aclose: the driver it owned is closed

    with pytest.raises(DriverError, match="closed"):
        asyncio.run(run())


def test_a_secret_is_not_remembered_and_the_run_goes_on(memory: Memory, user_id: str) -> None:
    async def run() -> str:
        provider = HmemContextProvider(memory, user_id=user_id, recall_timeout=story.SLOW_CI)
        agent = Agent(client=ScriptedClient(["Noted."]), context_providers=[provider])
        said = "My card is 4111 1111 1111 1111."
        await agent.run(said, session=agent.create_session())
        answer = await agent.run("I live in Lyon.", session=agent.create_session())
        return answer.text

    assert asyncio.run(run()) == "Noted."
    assert [f.text for f in memory.facts(user_id=user_id)] == ["I live in Lyon."]


def test_hmem_down_the_run_goes_on_without_memories(
    config: Config, fake_openai: FakeOpenAIServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Neo4j unreachable (nothing listens at its address): before_run's recall fails
    open (no memory message, a warning), the turns are queued (background=True), and
    the agent answers."""
    down = story.neo4j_down(config, fake_openai, tmp_path / "q.sqlite3")

    async def run() -> None:
        with Memory(down) as memory:
            provider = HmemContextProvider(
                memory, user_id="maya", background=True, recall_timeout=30
            )
            client = ScriptedClient(["Noted."])
            agent = Agent(client=client, context_providers=[provider])
            answer = await agent.run("I moved to Paris.", session=agent.create_session())
            assert answer.text == "Noted."
            assert not any(m.text.startswith(HEADER) for m in client.seen[-1])
            assert memory.ingest.queue.pending() == 1

    with caplog.at_level(logging.WARNING):
        asyncio.run(run())
    assert any("hmem recall failed (StoreUnavailableError" in r.message for r in caplog.records)
