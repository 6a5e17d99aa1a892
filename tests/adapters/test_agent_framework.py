"""Microsoft Agent Framework's own Agent.run with a scripted BaseChatClient and
HmemContextProvider, over hmem on a real Neo4j: embedded and over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_framework import Agent, BaseChatClient, ChatResponse, Message
from neo4j import Driver

from hmem import Config, Memory
from hmem.faces.adapters.agent_framework import HEADER, HmemContextProvider
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
    provider = HmemContextProvider(backend, user_id=user)
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
        context_providers=[HmemContextProvider(backend, user_id=other, extract=False)],
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
