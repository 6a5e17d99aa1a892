"""AutoGen AgentChat's own AssistantAgent with its ReplayChatCompletionClient and
HmemMemory in ``memory=[...]``, over hmem on a real Neo4j: embedded and over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_core import Image
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
    # the fake server's embeddings are hash vectors: no cosine means anything, so no cut-off
    memory = HmemMemory(user_backend, user_id=user, score_threshold=None)
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

    stranger_memory = HmemMemory(other_backend, user_id=other, learn=False, score_threshold=None)
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


def test_component_config_round_trip(
    mem: Memory, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = HmemMemory(mem, user_id=user_id, extract=False, k=3, score_threshold=0.6)
    dumped = memory.dump_component()
    assert dumped.provider == "hmem.faces.adapters.autogen.HmemMemory"
    assert dumped.config["user_id"] == user_id  # and no key: only the variable's name
    assert dumped.config["k"] == 3 and dumped.config["score_threshold"] == 0.6
    assert "api_key" not in dumped.config
    monkeypatch.setenv("HMEM_API_KEY", "hmem_test_key")
    remote = HmemMemory.load_component(
        {**dumped.model_dump(), "config": {**dumped.config, "api_url": "http://127.0.0.1:9"}}
    )
    assert isinstance(remote, HmemMemory) and remote.user_id == user_id
    assert remote._config.k == 3 and remote._config.score_threshold == 0.6
    asyncio.run(remote.close())  # it built its client: it closes it


def test_content_types_and_metadata_come_back_as_given(memory: Memory, user_id: str) -> None:
    store = HmemMemory(memory, user_id=user_id, sequential=True, annotate=False, learn=False)
    image = Image.from_base64(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    items = [
        MemoryContent(
            content="plain text",
            mime_type=MemoryMimeType.TEXT,
            metadata={"n": 1, "w": 0.5, "ok": True},
        ),
        MemoryContent(content="# heading", mime_type=MemoryMimeType.MARKDOWN),
        MemoryContent(content={"key": "value", "nested": [1, 2]}, mime_type=MemoryMimeType.JSON),
        MemoryContent(content=b"\x00\x01binary", mime_type=MemoryMimeType.BINARY),
        MemoryContent(content=image, mime_type=MemoryMimeType.IMAGE),
        MemoryContent(content="a custom type", mime_type="text/x-note"),
    ]

    async def run() -> None:
        for item in items:
            await store.add(item)
        back = (await store.query("anything")).results
        assert [r.content for r in back[:4]] == [i.content for i in items[:4]]
        assert [r.mime_type for r in back] == [i.mime_type for i in items]
        assert isinstance(back[3].content, bytes) and isinstance(back[4].content, Image)
        assert back[4].content.to_base64() == image.to_base64()
        assert back[0].metadata == {"n": 1, "w": 0.5, "ok": True} and back[1].metadata == {}
        with pytest.raises(ValueError, match="JSON content must be a dict"):
            await store.add(MemoryContent(content="not a dict", mime_type=MemoryMimeType.JSON))
        # metadata beyond what a fact's source holds: kept in full all the same
        long = MemoryContent(
            content="a long-noted item",
            mime_type=MemoryMimeType.MARKDOWN,
            metadata={"k": "v" * 300, "n": [1, 2]},
        )
        await store.add(long)
        found = (await store.query("a long-noted item")).results
        assert [r for r in found if r.content == long.content] == [long]

    asyncio.run(run())
    assert len(memory.facts(user_id=user_id)) == len(items) + 1  # the refused one: nothing


def test_k_thresholds_and_sequential_per_query(memory: Memory, user_id: str) -> None:
    """The memory's k / score_threshold, overridden per query with AutoGen's names
    (k, top_k, score_threshold, distance_threshold, sequential); nothing when nothing
    is relevant; scores in the metadata (annotate, as Chroma's)."""
    store = HmemMemory(memory, user_id=user_id, learn=False, k=3, score_threshold=0.2)
    texts = [
        "my favorite fruit are apples",
        "I also like cherries",
        "I like plums as well",
        "The car is red",
    ]

    async def run() -> None:
        for text in texts:
            await store.add(MemoryContent(content=text, mime_type=MemoryMimeType.TEXT))
        fruit = (await store.query("which fruit do I like")).results
        assert 1 <= len(fruit) <= 3 and fruit[0].content == texts[0]
        scores = [r.metadata["score"] for r in fruit if r.metadata]
        assert scores == sorted(scores, reverse=True) and all(s >= 0.2 for s in scores)
        assert fruit[0].metadata and fruit[0].metadata["id"]
        assert len((await store.query("which fruit do I like", top_k=1)).results) == 1
        assert len((await store.query("which fruit do I like", k=1)).results) == 1
        strict = (await store.query("my favorite fruit", score_threshold=0.99)).results
        assert [r.content for r in strict] == [texts[0]]
        assert [
            r.content
            for r in (await store.query("my favorite fruit", distance_threshold=0.01)).results
        ] == [texts[0]]
        assert (await store.query("zebra quantum xylophone", score_threshold=0.5)).results == []
        recent = (await store.query("anything", sequential=True, top_k=2)).results
        assert [r.content for r in recent] == texts[2:]
        with pytest.raises(TypeError):
            await store.query({"not": "a MemoryContent"})  # type: ignore[arg-type]

    asyncio.run(run())
    sequential = HmemMemory(memory, user_id=user_id, sequential=True, learn=False)
    with pytest.raises(ValueError, match="sequential"):
        asyncio.run(sequential.query("x", sequential=False))


def test_clear_erases_this_users_memory_only(memory: Memory, user_id: str, other_user: str) -> None:
    mine = HmemMemory(memory, user_id=user_id, learn=False, sequential=True)
    theirs = HmemMemory(memory, user_id=other_user, learn=False, sequential=True)

    async def run() -> None:
        await mine.add(MemoryContent(content="I keep bees.", mime_type=MemoryMimeType.TEXT))
        await theirs.add(MemoryContent(content="I keep goats.", mime_type=MemoryMimeType.TEXT))
        await mine.clear()
        assert (await mine.query("bees")).results == []
        assert [r.content for r in (await theirs.query("goats")).results] == ["I keep goats."]

    asyncio.run(run())
    assert memory.facts(user_id=user_id, include_closed=True) == []  # erased, not closed


def test_close_leaves_a_shared_memory_open(memory: Memory, user_id: str) -> None:
    """Issue 46's defect 5: ``HmemMemory(mem, user_id=...).close()`` shut ``mem`` down and
    the next HmemMemory on it failed with ``Driver closed``."""

    async def run() -> None:
        await HmemMemory(memory, user_id=user_id, learn=False).close()
        other = HmemMemory(memory, user_id=user_id, learn=False, sequential=True)
        await other.add(MemoryContent(content="Still open.", mime_type=MemoryMimeType.TEXT))
        assert [r.content for r in (await other.query("")).results] == ["Still open."]

    asyncio.run(run())


def test_a_secret_is_refused_with_valueerror(memory: Memory, user_id: str) -> None:
    store = HmemMemory(memory, user_id=user_id, learn=False)

    async def run() -> None:
        with pytest.raises(ValueError, match="refused"):
            await store.add(
                MemoryContent(
                    content="My password is hunter2-Blue-77!", mime_type=MemoryMimeType.TEXT
                )
            )

    asyncio.run(run())
    assert memory.facts(user_id=user_id) == []
