"""A Pydantic AI agent with hmem as its memory (``HmemMemory`` capability).

    pip install 'hmem[pydantic-ai]'  # + pydantic-ai-slim[openai] for a real model
    hmem neo4j start                 # or HMEM_API_URL / HMEM_API_KEY for a running API
    python examples/pydantic_ai/agent.py

With no OPENAI_API_KEY, Pydantic AI's own FunctionModel plays the agent; with one,
openai:gpt-4o-mini does.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hmem import Client, Memory
from hmem.demo import where_to_look
from hmem.faces.adapters.pydantic_ai import HmemMemory


def backend() -> Client | Memory:
    """The HTTP API when HMEM_API_URL is set (key in HMEM_API_KEY), else an embedded
    Memory on the local Neo4j (`hmem neo4j start`)."""
    if os.environ.get("HMEM_API_URL"):
        return Client(os.environ["HMEM_API_URL"], api_key=os.environ["HMEM_API_KEY"])
    memory = Memory()
    memory.init_schema()
    return memory


@dataclass
class Deps:
    user_id: str  # the framework's identity: hmem never takes the user from the model


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Save the first thing said; afterwards answer from the recalled memory."""
    if len(messages) == 1 and "moved" in str(messages[0].parts[-1]):
        text = "The user moved from London to Paris last month."
        return ModelResponse(parts=[ToolCallPart("remember", {"text": text})])
    memory = (info.instructions or "").splitlines()
    return ModelResponse(parts=[TextPart(" / ".join(memory[-2:]) or "Noted.")])


def model() -> Any:
    return "openai:gpt-4o-mini" if os.environ.get("OPENAI_API_KEY") else FunctionModel(scripted)


async def main() -> None:
    agent = Agent(model(), deps_type=Deps, capabilities=[HmemMemory(backend())])
    deps = Deps(user_id=f"example-{uuid.uuid4().hex[:8]}")
    for said in ("I moved from London to Paris last month.", "Where did I live before Paris?"):
        result = await agent.run(said, deps=deps)
        print(f"user:  {said}\nagent: {result.output}")
    print(where_to_look([deps.user_id], api_url=os.environ.get("HMEM_API_URL")))


if __name__ == "__main__":
    asyncio.run(main())
