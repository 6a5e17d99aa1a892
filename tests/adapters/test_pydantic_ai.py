"""hmem in a Pydantic AI ``Agent`` (its own ``FunctionModel`` as the scripted model), on a
real Neo4j and over HTTP: the capability's tools write, its instruction recalls."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from neo4j import Driver
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hmem import AsyncClient, Config, Memory
from hmem.faces.adapters.pydantic_ai import HmemMemory, hmem_instructions, hmem_toolset
from tests.adapters import _story as story
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server


@dataclass
class Deps:
    user_id: str


class Script:
    """The model: what it does in each session, and every input it was given."""

    def __init__(self) -> None:
        self.inputs: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen = [info.instructions or ""]
        for message in messages:
            seen += [str(getattr(p, "content", "")) for p in message.parts]
        self.inputs.append("\n".join(seen))
        last = messages[-1]
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        prompt = next(
            str(p.content) for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if getattr(p, "part_kind", "") == "user-prompt"
        )  # fmt: skip
        if prompt == story.SESSION_0 and not returned:
            return self.call("remember", text=story.LONDON, valid_from=story.LONDON_FROM)
        if prompt == story.SESSION_1 and not returned:
            return self.call("recall", query="London")
        if prompt == story.SESSION_1 and returned[0].tool_name == "recall":
            london = re.findall(r"\[([^\]]+)\] Maya lives in London", str(returned[0].content))
            return self.call(
                "remember", text=story.PARIS, valid_from=story.MOVED, supersedes=london
            )
        return ModelResponse(parts=[TextPart("Done.")])

    @staticmethod
    def call(tool: str, **args: Any) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(tool, args)])


async def _sessions(agent: Agent[Deps, str], maya: str, other: str) -> None:
    for said in (story.SESSION_0, story.SESSION_1, story.SESSION_2):
        await agent.run(said, deps=Deps(maya))
    await agent.run(story.SESSION_2, deps=Deps(other))


def test_two_sessions_through_an_agent(memory: Memory, user_id: str, other_user: str) -> None:
    script = Script()
    agent = Agent(FunctionModel(script), deps_type=Deps, capabilities=[HmemMemory(memory)])
    asyncio.run(_sessions(agent, user_id, other_user))
    story.assert_story(script.inputs[-2])  # Maya's session 2
    story.assert_nothing_of_maya(script.inputs[-1])  # the other user's
    # session 1 superseded London (history kept); the tool never named a user
    paris = memory.facts(user_id=user_id)
    assert [f.text for f in paris] == [story.PARIS]
    chain = memory.history(paris[0].id, user_id=user_id)
    assert [s.fact.text for s in chain.predecessors] == [story.LONDON]
    assert paris[0].source == "pydantic-ai"


def test_forget_closes_and_history_reads_through_the_toolset(memory: Memory, user_id: str) -> None:
    fact = memory.remember("Maya plays the cello.", user_id=user_id).added[0]
    calls = iter([("forget", {"fact_id": fact}), ("history", {"fact_id": fact})])
    answers: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        answers.extend(str(p.content) for p in messages[-1].parts if isinstance(p, ToolReturnPart))
        step = next(calls, None)
        return Script.call(*step[:1], **step[1]) if step else ModelResponse([TextPart("ok")])

    agent = Agent(
        FunctionModel(model),
        deps_type=dict,
        toolsets=[hmem_toolset(memory)],
        instructions=hmem_instructions(memory),
    )
    # asyncio.run, not run_sync: run_sync leaves its event loop open (a ResourceWarning)
    asyncio.run(agent.run("I stopped playing the cello.", deps={"user_id": user_id}))
    assert answers[0] == f"Forgotten: {fact} is closed (retraction); it can be restored."
    assert "retraction" not in answers[1] and "Maya plays the cello." in answers[1]
    assert memory.get(fact, user_id=user_id).close_reason == "retraction"
    memory.restore(fact, user_id=user_id)  # closed, not erased
    # no deps, no user: the run fails before any tool can reach a store
    with pytest.raises(ValueError, match="user_id"):
        asyncio.run(agent.run("hello", deps={}))


def test_a_secret_is_refused_as_a_model_retry_and_erasure_holds(
    memory: Memory, user_id: str, other_user: str
) -> None:
    """The write policy through the toolset: the model is told with Pydantic AI's own
    retry (``ModelRetry``) and nothing is stored; an erased user's memory is gone from
    recall, another user's stays."""
    calls = iter(
        [
            ("remember", {"text": "Maya's card is 4111 1111 1111 1111."}),
            ("remember", {"text": "Maya lives in Lyon."}),
            ("recall", {"query": ""}),
        ]
    )
    told: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        told.extend(
            str(p.content) if isinstance(p, ToolReturnPart) else p.model_response()
            for p in messages[-1].parts
            if isinstance(p, ToolReturnPart | RetryPromptPart)
        )
        step = next(calls, None)
        return Script.call(*step[:1], **step[1]) if step else ModelResponse([TextPart("ok")])

    agent = Agent(FunctionModel(model), deps_type=Deps, capabilities=[HmemMemory(memory)])
    asyncio.run(agent.run("Remember my card.", deps=Deps(user_id)))
    assert "PolicyRefusal" in told[0] and "4111" not in told[0]
    assert told[1].startswith("Remembered as ")
    assert "Maya lives in Lyon." in told[2] and "4111" not in told[2]
    assert [f.text for f in memory.facts(user_id=user_id)] == ["Maya lives in Lyon."]
    memory.remember("Maya's neighbour lives in Lyon.", user_id=other_user)
    memory.erase_user(user_id)
    calls = iter([("recall", {"query": "Lyon"})])
    told.clear()
    asyncio.run(agent.run("Where do I live?", deps=Deps(user_id)))
    assert told == ["Nothing is remembered about that yet."]
    assert [f.text for f in memory.facts(user_id=other_user)] == ["Maya's neighbour lives in Lyon."]


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
    script = Script()

    async def run() -> None:
        async with AsyncClient(server.url, api_key=tenant.key) as client:
            agent = Agent(FunctionModel(script), deps_type=Deps, capabilities=[HmemMemory(client)])
            await _sessions(agent, maya, other)

    asyncio.run(run())
    story.assert_story(script.inputs[-2])
    story.assert_nothing_of_maya(script.inputs[-1])
