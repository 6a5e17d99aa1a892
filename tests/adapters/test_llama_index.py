"""LlamaIndex's own Memory (short-term FIFO, flush to blocks, the memory-block
template) with HmemMemoryBlock, over hmem on a real Neo4j: embedded and over HTTP.
LlamaIndex needs no model here: what ``Memory.aget`` returns is what an agent sends."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import Memory as LlamaMemory
from neo4j import Driver
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from hmem import Config, Memory, PolicyRefusal
from hmem.faces.adapters.llama_index import HEADER, HmemMemoryBlock
from tests.adapters import _session_story as story
from tests.fakes.openai_server import FakeOpenAIServer


def chat(block: HmemMemoryBlock, session_id: str, engine: AsyncEngine) -> LlamaMemory:
    # a short FIFO, so that older messages are flushed to the block (to hmem) soon
    return LlamaMemory.from_defaults(
        session_id=session_id,
        token_limit=60,
        token_flush_size=20,
        memory_blocks=[block],
        async_engine=engine,  # LlamaIndex's chat store, closed by the test
    )


def shown(messages: list[ChatMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


async def tell_the_story(backend: Any, user: str, other: str, fake: FakeOpenAIServer) -> None:
    engine = create_async_engine("sqlite+aiosqlite:///:memory:")
    try:
        await _tell(backend, user, other, fake, engine)
    finally:
        await engine.dispose()


async def _tell(
    backend: Any, user: str, other: str, fake: FakeOpenAIServer, engine: AsyncEngine
) -> None:
    story.script_extractor(fake)
    block = HmemMemoryBlock(backend=backend, user_id=user)
    filler = "Tell me more about the neighbourhoods, the markets and the museums there."
    for session_id, said in (("earlier", story.EARLIER), ("first", story.MOVED)):
        memory = chat(block, session_id, engine)
        await memory.aput_messages(
            [
                ChatMessage(role="user", content=said),
                ChatMessage(role="assistant", content="Noted."),
            ]
        )
        if session_id == "first":
            fake.queue_chat({"facts": []})
        for _ in range(3):  # later turns push the first one out of the FIFO, into hmem
            await memory.aput_messages([ChatMessage(role="user", content=filler)])
    prompts = story.extractor_prompts(fake)
    assert story.EARLIER in prompts[0] and story.MOVED in prompts[1]

    memory = chat(block, "second", engine)
    await memory.aput_messages([ChatMessage(role="user", content=story.QUESTION)])
    model_input = await memory.aget()
    story.assert_story(shown(model_input))
    assert HEADER in str(model_input[0].content)  # in the system message, as LlamaIndex puts it

    stranger = chat(HmemMemoryBlock(backend=backend, user_id=other), "third", engine)
    await stranger.aput_messages([ChatMessage(role="user", content=story.QUESTION)])
    assert "London" not in shown(await stranger.aget())


def test_memory_block_story_embedded(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    asyncio.run(tell_the_story(mem, user_id, other_user, fake_openai))
    assert [f.text for f in mem.facts(user_id=user_id)] == [story.PARIS_FACT]


def test_memory_block_story_over_http(
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


def test_put_stores_the_batch_as_given(memory: Memory, user_id: str, other_user: str) -> None:
    """Model-free: every role, questions and answers, one fact per batch, in
    VectorMemoryBlock's form; recall finds it by relevance, for this user only."""
    block = HmemMemoryBlock(backend=memory, user_id=user_id, similarity_top_k=2)
    said = [
        ChatMessage(role="user", content="What's the capital of France?"),
        ChatMessage(role="assistant", content="The capital of France is Paris."),
    ]
    asyncio.run(block.aput(said))
    [fact] = memory.facts(user_id=user_id)
    assert fact.text == (
        "<message role='user'>What's the capital of France?</message>\n"
        "<message role='assistant'>The capital of France is Paris.</message>"
    )
    asked = [ChatMessage(role="user", content="Tell me about Paris.")]
    found = asyncio.run(block.aget(asked))
    assert found.startswith(HEADER) and "The capital of France is Paris." in found
    stranger = HmemMemoryBlock(backend=memory, user_id=other_user)
    assert asyncio.run(stranger.aget(asked)) == ""  # tenant isolation
    memory.erase_user(user_id)  # erasure
    assert asyncio.run(block.aget(asked)) == ""


def test_empty_or_textless_put_stores_nothing(memory: Memory, user_id: str) -> None:
    block = HmemMemoryBlock(backend=memory, user_id=user_id)
    assert asyncio.run(block.aget([])) == ""
    asyncio.run(block.aput([]))
    asyncio.run(block.aput([ChatMessage(role="user", content=None, blocks=[])]))
    assert memory.facts(user_id=user_id) == []


def test_write_policy_refuses_a_secret(memory: Memory, user_id: str) -> None:
    block = HmemMemoryBlock(backend=memory, user_id=user_id)
    with pytest.raises(PolicyRefusal):
        asyncio.run(
            block.aput([ChatMessage(role="user", content="My password is hunter2-Blue-77!")])
        )
    assert memory.facts(user_id=user_id) == []
