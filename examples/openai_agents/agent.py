"""An OpenAI Agents SDK agent with hmem: tools, and recalled memory in its input.

    pip install 'hmem[openai-agents]'
    hmem neo4j start                 # or HMEM_API_URL / HMEM_API_KEY for a running API
    python examples/openai_agents/agent.py

With no OPENAI_API_KEY the SDK's own ScriptedModel plays the agent; with one, the SDK's
default OpenAI model does.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any

from agents import Agent, RunConfig, Runner, set_tracing_disabled
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

from hmem import Client, Memory
from hmem.demo import where_to_look
from hmem.faces.adapters.openai_agents import hmem_input_filter, hmem_tools


def backend() -> Client | Memory:
    """The HTTP API when HMEM_API_URL is set (key in HMEM_API_KEY), else an embedded
    Memory on the local Neo4j (`hmem neo4j start`)."""
    if os.environ.get("HMEM_API_URL"):
        return Client(os.environ["HMEM_API_URL"], api_key=os.environ["HMEM_API_KEY"])
    memory = Memory()
    memory.init_schema()
    return memory


def answer(call: ModelCall) -> list[Any]:
    """Answer with the memory the input filter put before the question."""
    memory = next(i["content"] for i in call.input if "What hmem remembers" in str(i))
    return [assistant_message(memory.splitlines()[-1])]


def model() -> Any:
    if os.environ.get("OPENAI_API_KEY"):
        return None  # the SDK's default model
    set_tracing_disabled(True)
    text = "The user moved from London to Paris last month."
    return ScriptedModel([
        [function_call("remember", {"text": text}, call_id="c1")],
        [assistant_message("Noted.")],
        ModelStep.respond(answer),
    ])  # fmt: skip


async def main() -> None:
    memory = backend()
    agent = Agent(name="assistant", instructions="Use your memory tools.", model=model(),
                  tools=hmem_tools(memory))  # fmt: skip
    config = RunConfig(call_model_input_filter=hmem_input_filter(memory))
    context = {"user_id": f"example-{uuid.uuid4().hex[:8]}"}  # the app's user, not the model's
    for said in ("I moved from London to Paris last month.", "Where did I live before Paris?"):
        result = await Runner.run(agent, said, context=context, run_config=config)
        print(f"user:  {said}\nagent: {result.final_output}")
    print(where_to_look([context["user_id"]], api_url=os.environ.get("HMEM_API_URL")))


if __name__ == "__main__":
    asyncio.run(main())
