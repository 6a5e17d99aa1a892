"""LlamaIndex: ``HmemMemoryBlock``, a long-term ``BaseMemoryBlock`` over hmem.

    from llama_index.core.memory import Memory
    from hmem.faces.adapters.llama_index import HmemMemoryBlock

    memory = Memory.from_defaults(
        session_id="s1", token_limit=4000,
        memory_blocks=[HmemMemoryBlock(backend=hmem.AsyncClient(url, api_key=key), user_id="maya")],
    )
    agent.run("...", memory=memory)

| LlamaIndex               | hmem                                                             |
|--------------------------|------------------------------------------------------------------|
| ``_aget(messages)``      | ``search`` with the last user message → dated facts, in the      |
|                          | ``<memory>`` part of the prompt (``insert_method=USER``: a user  |
|                          | message)                                                         |
| ``_aput(messages)``      | ``add`` of the messages, with their session id (model-free: the  |
|                          | user's turns as said)                                            |

LlamaIndex calls ``_aput`` only with messages flushed out of the short-term FIFO
(``token_limit`` × ``chat_history_token_ratio``): a small ``token_limit`` writes soon,
the default (30,000 tokens) late. ``await block.aput(messages, session_id=...)`` writes
at once. The user is ``user_id``, fixed at construction.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, PrivateAttr

from hmem.faces.adapters._core import Port, check_user, missing
from hmem.faces.adapters._turns import Turn, TurnWriter, dated_lines
from hmem.recall.models import SearchResult

try:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.memory.memory import BaseMemoryBlock
except ImportError as exc:  # the framework is the llama-index extra
    raise missing("llama-index-core", "llama-index") from exc

__all__ = ["HmemMemoryBlock"]

SOURCE = "llama-index"
HEADER = "Memories about the user (hmem; dates: when true; replaced = no longer true):"


class HmemMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory of one user in hmem."""

    name: str = "hmem"
    description: str | None = "What hmem remembers about the user, with dates."
    user_id: str
    k: int = 10
    backend: Any = Field(exclude=True, description="a hmem.Memory, Client or AsyncClient")
    extract: bool | None = None
    _port: Port = PrivateAttr()
    _writer: TurnWriter = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        self.user_id = check_user(self.user_id)
        self._port = Port(self.backend)
        self._writer = TurnWriter(self._port, source=SOURCE, extract=self.extract)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        users = [m for m in messages or [] if m.role == MessageRole.USER and m.content]
        query = str(users[-1].content) if users else ""
        if not query.strip():
            return ""
        found: SearchResult = await self._port.acall(
            "search", query, user_id=self.user_id, k=self.k
        )
        if not found.hits:
            return ""
        return HEADER + "\n" + "\n".join(f"- {line}" for line in dated_lines(found))

    async def _aput(self, messages: list[ChatMessage]) -> None:
        by_session: dict[str | None, list[Turn]] = {}
        for m in messages:
            if m.role not in (MessageRole.USER, MessageRole.ASSISTANT) or not m.content:
                continue
            session = m.additional_kwargs.get("session_id")
            said_by_user = m.role == MessageRole.USER
            turn = Turn("user" if said_by_user else "assistant", str(m.content))
            by_session.setdefault(session, []).append(turn)
        for session, turns in by_session.items():
            await self._writer.write(self.user_id, turns, session_id=session)
