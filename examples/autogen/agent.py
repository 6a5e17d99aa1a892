"""An AutoGen AssistantAgent with hmem as its memory: two runs for one user, one for another.

    python examples/autogen/agent.py

hmem is the API at HMEM_API_URL (with HMEM_API_KEY) when set, else embedded (HMEM_NEO4J_*);
HMEM_LLM_* gives hmem its extractor. The agent's model is AutoGen's replay client
(scripted, no key); with OPENAI_API_KEY and `pip install 'autogen-ext[openai]'`, pass
OpenAIChatCompletionClient(model="gpt-4o-mini") instead.
"""

from __future__ import annotations

import asyncio
import os
import uuid

from autogen_agentchat.agents import AssistantAgent
from autogen_ext.models.replay import ReplayChatCompletionClient

import hmem
from hmem.demo import where_to_look
from hmem.faces.adapters.autogen import HmemMemory


def backend() -> hmem.Memory | hmem.AsyncClient:
    if url := os.environ.get("HMEM_API_URL"):
        return hmem.AsyncClient(url, api_key=os.environ["HMEM_API_KEY"])
    memory = hmem.Memory()
    memory.init_schema()
    return memory


async def main() -> None:
    store = backend()
    users = []
    for user, said in [
        (
            f"maya-{uuid.uuid4().hex[:6]}",
            ["I moved from London to Paris last month.", "Where did I live before Paris?"],
        ),
        (f"sam-{uuid.uuid4().hex[:6]}", ["Where did I live before Paris?"]),
    ]:
        users.append(user)
        memory = HmemMemory(store, user_id=user)
        agent = AssistantAgent(
            "assistant",
            model_client=ReplayChatCompletionClient(["Noted."] * len(said)),
            memory=[memory],
        )
        for text in said:
            result = await agent.run(task=text)
            # the MemoryQueryEvent shows what hmem put in the model's context
            for message in result.messages:
                print(f"{message.source}> {message.content}")
    print(where_to_look(users, api_url=os.environ.get("HMEM_API_URL")))


if __name__ == "__main__":
    asyncio.run(main())
