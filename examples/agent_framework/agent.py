"""A Microsoft Agent Framework agent with hmem as a context provider.

    python examples/agent_framework/agent.py

hmem is the API at HMEM_API_URL (with HMEM_API_KEY) when set, else embedded (HMEM_NEO4J_*);
HMEM_LLM_* gives hmem its extractor. The agent's client is a scripted stand-in that
answers with the memory message the provider added; with a key, pass a real chat client
(e.g. agent_framework.openai.OpenAIChatClient) instead.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Sequence
from typing import Any

from agent_framework import Agent, BaseChatClient, ChatResponse, Message

import hmem
from hmem.demo import where_to_look
from hmem.faces.adapters.agent_framework import HEADER, HmemContextProvider


class EchoMemoryClient(BaseChatClient):
    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        memory = [m.text for m in messages if m.text.startswith(HEADER)]

        async def reply() -> ChatResponse:
            return ChatResponse(
                messages=[Message("assistant", [memory[-1] if memory else "Noted."])]
            )

        return reply()


def backend() -> hmem.Memory | hmem.AsyncClient:
    if url := os.environ.get("HMEM_API_URL"):
        return hmem.AsyncClient(url, api_key=os.environ["HMEM_API_KEY"])
    memory = hmem.Memory()
    memory.init_schema()
    return memory


async def main() -> None:
    store = backend()
    maya, sam = f"maya-{uuid.uuid4().hex[:6]}", f"sam-{uuid.uuid4().hex[:6]}"
    for user, text in [
        (maya, "I moved from London to Paris last month."),
        (maya, "Where did I live before Paris?"),
        (sam, "Where did I live before Paris?"),
    ]:
        agent = Agent(
            client=EchoMemoryClient(), context_providers=[HmemContextProvider(store, user_id=user)]
        )
        print(f"{user}> {text}")
        print(f"agent> {(await agent.run(text, session=agent.create_session())).text}")
    print(where_to_look([maya, sam], api_url=os.environ.get("HMEM_API_URL")))


if __name__ == "__main__":
    asyncio.run(main())
