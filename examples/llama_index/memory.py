"""LlamaIndex's Memory with hmem as a long-term memory block (no model needed).

    python examples/llama_index/memory.py

hmem is the API at HMEM_API_URL (with HMEM_API_KEY) when set, else embedded (HMEM_NEO4J_*);
HMEM_LLM_* gives hmem its extractor. Pass the Memory to any agent
(`agent.run(..., memory=memory)`): what `memory.aget()` prints below is what it sends.
"""

from __future__ import annotations

import asyncio
import os
import uuid

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import Memory

import hmem
from hmem.demo import where_to_look
from hmem.faces.adapters.llama_index import HmemMemoryBlock


def backend() -> hmem.Memory | hmem.AsyncClient:
    if url := os.environ.get("HMEM_API_URL"):
        return hmem.AsyncClient(url, api_key=os.environ["HMEM_API_KEY"])
    memory = hmem.Memory()
    memory.init_schema()
    return memory


async def main() -> None:
    user = f"maya-{uuid.uuid4().hex[:6]}"
    block = HmemMemoryBlock(backend=backend(), user_id=user)
    first = Memory.from_defaults(session_id="first", token_limit=4000, memory_blocks=[block])
    said = [ChatMessage(role="user", content="I moved from London to Paris last month.")]
    await first.aput_messages(said)
    await block.aput(said, session_id="first")  # now, not when the FIFO flushes

    second = Memory.from_defaults(session_id="second", token_limit=4000, memory_blocks=[block])
    await second.aput_messages([ChatMessage(role="user", content="Where did I live before Paris?")])
    for message in await second.aget():
        print(f"{message.role.value}> {message.content}")
    print(where_to_look([user], api_url=os.environ.get("HMEM_API_URL")))


if __name__ == "__main__":
    asyncio.run(main())
