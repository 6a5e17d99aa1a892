"""LlamaIndex's own Memory (short-term FIFO, flush to blocks, the memory-block
template) with HmemMemoryBlock, over hmem on a real Neo4j: embedded and over HTTP.
LlamaIndex needs no model here: what ``Memory.aget`` returns is what an agent sends."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import Memory as LlamaMemory
from neo4j import Driver
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from hmem import Config, Memory, PolicyRefusal
from hmem.errors import ValidationError
from hmem.faces.adapters.llama_index import HEADER, SOURCE, HmemMemoryBlock
from hmem.models import Fact
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
    block = HmemMemoryBlock(backend=backend, user_id=user, recall_timeout=story.SLOW_CI)
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

    stranger = chat(
        HmemMemoryBlock(backend=backend, user_id=other, recall_timeout=story.SLOW_CI),
        "third",
        engine,
    )
    await stranger.aput_messages([ChatMessage(role="user", content=story.QUESTION)])
    assert "London" not in shown(await stranger.aget())


def extracted(facts: list[Fact]) -> list[str]:
    """The extractor's facts, not the verbatim batches beside them."""
    return [f.text for f in facts if f.source != SOURCE]


def test_memory_block_story_embedded(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    """With a model, the extractor's facts (London closed by Paris) come beside the
    batches as LlamaIndex handed them, not instead of them."""
    asyncio.run(tell_the_story(mem, user_id, other_user, fake_openai))
    facts = mem.facts(user_id=user_id)
    assert extracted(facts) == [story.PARIS_FACT]
    batches = [f.text for f in facts if f.source == SOURCE]
    assert f"<message role='user'>{story.EARLIER}</message>" in batches[0]
    assert any(f"<message role='user'>{story.MOVED}</message>" in b for b in batches)


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
        extracted,
    )


def test_put_stores_the_batch_as_given(memory: Memory, user_id: str, other_user: str) -> None:
    """Model-free: every role, questions and answers, one fact per batch, in
    VectorMemoryBlock's form; recall finds it by relevance, for this user only."""
    block = HmemMemoryBlock(
        backend=memory, user_id=user_id, similarity_top_k=2, recall_timeout=story.SLOW_CI
    )
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


def test_agent_and_run_scoping(memory: Memory, user_id: str) -> None:
    """mem0's agent_id / run_id: an agent's or a run's own memory of the user, which
    another agent, another run and the user's unscoped block never read."""
    said = [ChatMessage(role="user", content="I prefer window seats.")]
    asked = [ChatMessage(role="user", content="Which seat do I prefer?")]
    slow = story.SLOW_CI
    travel = HmemMemoryBlock(
        backend=memory, user_id=user_id, agent_id="travel", recall_timeout=slow
    )
    run = HmemMemoryBlock(
        backend=memory, user_id=user_id, agent_id="travel", run_id="r-1", recall_timeout=slow
    )
    assert travel.memory_user == f"{user_id}.agent-travel"
    assert run.memory_user == f"{user_id}.agent-travel.run-r-1"
    asyncio.run(travel.aput(said))
    asyncio.run(run.aput([ChatMessage(role="user", content="This trip I prefer an aisle seat.")]))
    assert "window seats" in asyncio.run(travel.aget(asked))
    assert "aisle" not in asyncio.run(travel.aget(asked))
    assert "aisle" in asyncio.run(run.aget(asked)) and "window" not in asyncio.run(run.aget(asked))
    for other in (
        HmemMemoryBlock(backend=memory, user_id=user_id),
        HmemMemoryBlock(backend=memory, user_id=user_id, agent_id="billing"),
        HmemMemoryBlock(backend=memory, user_id=user_id, agent_id="travel", run_id="r-2"),
    ):
        assert asyncio.run(other.aget(asked)) == ""
    assert memory.facts(user_id=user_id) == []
    for scoped in (travel, run):  # a scope is erased as its own hmem user
        memory.erase_user(scoped.memory_user)
        assert asyncio.run(scoped.aget(asked)) == ""
    with pytest.raises(ValidationError):
        HmemMemoryBlock(backend=memory, user_id=user_id, agent_id="a.b")
    with pytest.raises(ValidationError):
        HmemMemoryBlock(backend=memory, user_id=f"{user_id}.run-x")


def test_retrieval_fails_open_when_neo4j_is_unreachable(
    config: Config, fake_openai: FakeOpenAIServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Embedded hmem whose Neo4j is not there (nothing listens at its address): the
    block gives the prompt nothing and logs why; LlamaIndex's Memory.aget goes on."""
    down = story.neo4j_down(config, fake_openai, tmp_path / "q.sqlite3")

    async def run() -> None:
        engine = create_async_engine("sqlite+aiosqlite:///:memory:")
        try:
            with Memory(down) as memory:
                chat_memory = chat(HmemMemoryBlock(backend=memory, user_id="maya"), "s", engine)
                await chat_memory.aput_messages([ChatMessage(role="user", content="Hi there.")])
                assert shown(await chat_memory.aget()) == "Hi there."
        finally:
            await engine.dispose()

    with caplog.at_level(logging.WARNING):
        asyncio.run(run())
    assert any("hmem recall failed (StoreUnavailableError" in r.message for r in caplog.records)
