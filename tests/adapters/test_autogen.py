"""AutoGen AgentChat's own AssistantAgent with its ReplayChatCompletionClient and
HmemMemory in ``memory=[...]``, over hmem on a real Neo4j: embedded and over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_core.memory import MemoryContent, MemoryMimeType
from autogen_core.models import CreateResult, LLMMessage
from autogen_ext.models.replay import ReplayChatCompletionClient
from neo4j import Driver

from hmem import Config, Memory
from hmem.faces.adapters.autogen import HEADER, HmemMemory
from tests.adapters import _session_story as story
from tests.fakes.openai_server import FakeOpenAIServer


class RecordingReplay(ReplayChatCompletionClient):
    """AutoGen's replay client, keeping what each call sent the model."""

    def __init__(self, replies: Sequence[str]) -> None:
        super().__init__(list(replies))
        self.seen: list[list[LLMMessage]] = []

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:
        self.seen.append(list(messages))
        return await super().create(messages, **kwargs)


def shown(messages: Sequence[LLMMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


async def tell_the_story(
    user_backend: Any, other_backend: Any, user: str, other: str, fake: FakeOpenAIServer
) -> None:
    story.script_extractor(fake)
    fake.queue_chat({"facts": []})  # the question is a user turn the memory learns from
    memory = HmemMemory(user_backend, user_id=user)
    model = RecordingReplay(["Noted.", "Noted.", "Before Paris you lived in London."])
    agent = AssistantAgent("assistant", model_client=model, memory=[memory])
    for said in (story.EARLIER, story.MOVED):
        await agent.run(task=said)
    result = await agent.run(task=story.QUESTION)
    assert result.messages[-1].content == "Before Paris you lived in London."
    story.assert_story(shown(model.seen[-1]))
    # one memory block in the model's input: the ones of earlier turns were removed
    blocks = [m for m in model.seen[-1] if str(m.content).startswith(HEADER)]
    assert len(blocks) == 1
    assert len(story.extractor_prompts(fake)) == 3  # each user message sent once

    stranger_memory = HmemMemory(other_backend, user_id=other, learn=False)
    stranger_model = RecordingReplay(["I don't know."])
    stranger = AssistantAgent("assistant", model_client=stranger_model, memory=[stranger_memory])
    await stranger.run(task=story.QUESTION)
    assert "London" not in shown(stranger_model.seen[-1])
    assert (await stranger_memory.query("London Paris")).results == []


def test_assistant_agent_story_embedded(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    asyncio.run(tell_the_story(mem, mem, user_id, other_user, fake_openai))
    assert [f.text for f in mem.facts(user_id=user_id)] == [story.PARIS_FACT]


def test_assistant_agent_story_over_http(
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
        lambda c, u, o: tell_the_story(c, c, u, o, fake_openai),
    )


def test_component_config_add_and_clear(
    mem: Memory, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = HmemMemory(mem, user_id=user_id, extract=False)

    async def run() -> None:
        await memory.add(MemoryContent(content="I keep bees.", mime_type=MemoryMimeType.TEXT))
        [hit] = (await memory.query("bees")).results
        assert "I keep bees" in str(hit.content) and hit.metadata and hit.metadata["valid_from"]
        with pytest.raises(PermissionError, match="erase_user"):
            await memory.clear()

    asyncio.run(run())
    dumped = memory.dump_component()
    assert dumped.provider == "hmem.faces.adapters.autogen.HmemMemory"
    assert dumped.config["user_id"] == user_id  # and no key: only the variable's name
    assert set(dumped.config) <= {"user_id", "api_url", "api_key_env", "k", "learn", "session_id"}
    monkeypatch.setenv("HMEM_API_KEY", "hmem_test_key")
    remote = HmemMemory.load_component(
        {**dumped.model_dump(), "config": {**dumped.config, "api_url": "http://127.0.0.1:9"}}
    )
    assert isinstance(remote, HmemMemory) and remote.user_id == user_id
    asyncio.run(remote.close())
