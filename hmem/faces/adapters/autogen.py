"""AutoGen (AgentChat 0.7): ``HmemMemory``, an ``autogen_core.memory.Memory`` component.

    from autogen_agentchat.agents import AssistantAgent
    from hmem.faces.adapters.autogen import HmemMemory

    memory = HmemMemory(hmem.AsyncClient(url, api_key=key), user_id="maya")
    agent = AssistantAgent("assistant", model_client=..., memory=[memory])

| AutoGen                        | hmem                                                      |
|--------------------------------|-----------------------------------------------------------|
| ``update_context(ctx)``        | ``search`` with the last user message → one SystemMessage  |
|                                | (the one added the turn before is removed first); with    |
|                                | ``learn`` the user's new messages go to ``add`` too        |
| ``query(q)``                   | ``search`` → ``MemoryContent`` with the fact's dates       |
| ``add(content)``               | ``add`` (model-free: ``remember``)                        |
| ``clear()``                    | refused: erasure is not the agent's call                  |
| ``close()``                    | shuts a client backend down                               |

``AssistantAgent`` calls only ``update_context``; ``learn=True`` (the default) makes
that call also send the user's messages not sent before, so a plain agent remembers.
The user is ``user_id``, fixed at construction (and in the component config).
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Self

from pydantic import BaseModel

from hmem.faces.adapters._core import Backend, Port, check_user, missing
from hmem.faces.adapters._turns import Turn, TurnWriter, hit_line
from hmem.recall.models import SearchResult

try:
    from autogen_core import CancellationToken, Component
    from autogen_core.memory import (
        Memory,
        MemoryContent,
        MemoryMimeType,
        MemoryQueryResult,
        UpdateContextResult,
    )
    from autogen_core.model_context import ChatCompletionContext
    from autogen_core.models import SystemMessage, UserMessage
except ImportError as exc:  # the framework is the autogen extra
    raise missing("autogen-agentchat", "autogen") from exc

__all__ = ["HmemMemory", "HmemMemoryConfig"]

SOURCE = "autogen"
# marks the SystemMessage this memory added, so that the next turn replaces it
HEADER = "Memories about the user from hmem (dates: when true; replaced = no longer true):"


class HmemMemoryConfig(BaseModel):
    """What ``dump_component`` keeps: the user, and where hmem is (``api_url`` with the
    key in the ``api_key_env`` variable, or embedded from ``HMEM_*`` when None)."""

    user_id: str
    api_url: str | None = None
    api_key_env: str = "HMEM_API_KEY"
    k: int = 10
    learn: bool = True
    session_id: str | None = None


class HmemMemory(Memory, Component[HmemMemoryConfig]):
    """AutoGen memory backed by hmem, embedded or over the API."""

    component_type = "memory"
    component_config_schema = HmemMemoryConfig
    component_provider_override = "hmem.faces.adapters.autogen.HmemMemory"

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        user_id: str,
        api_url: str | None = None,
        api_key_env: str = "HMEM_API_KEY",
        k: int = 10,
        learn: bool = True,
        session_id: str | None = None,
        extract: bool | None = None,
    ) -> None:
        if backend is None:
            backend = _backend(api_url, api_key_env)
        self._config = HmemMemoryConfig(
            user_id=check_user(user_id),
            api_url=api_url,
            api_key_env=api_key_env,
            k=k,
            learn=learn,
            session_id=session_id,
        )
        self.port = Port(backend)
        self.writer = TurnWriter(self.port, source=SOURCE, extract=extract)

    @property
    def user_id(self) -> str:
        return self._config.user_id

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        state = await model_context.save_state()
        messages = [m for m in state["messages"] if not _ours(m)]
        if len(messages) != len(state["messages"]):  # last turn's memory block goes
            await model_context.load_state({**state, "messages": messages})
        users = [m for m in messages if m.get("type") == "UserMessage"]
        query = _text(users[-1]) if users else ""
        if not query.strip():
            return UpdateContextResult(memories=MemoryQueryResult(results=[]))
        found = await self.query(query)
        if found.results:
            lines = "\n".join(f"- {r.content!s}" for r in found.results)
            await model_context.add_message(SystemMessage(content=f"{HEADER}\n{lines}"))
        if self._config.learn:
            await self._learn(users)
        return UpdateContextResult(memories=found)

    async def _learn(self, users: list[dict[str, Any]]) -> None:
        turns = [
            Turn("user", text, key=hashlib.sha256(text.encode()).hexdigest()[:16])
            for text in (_text(m) for m in users)
            if text.strip()
        ]
        await self.writer.write(
            self.user_id,
            turns,
            session_id=self._config.session_id,
            track=(self.user_id, self._config.session_id or ""),
        )

    async def query(
        self,
        query: str | MemoryContent = "",
        cancellation_token: CancellationToken | None = None,
        **kwargs: Any,
    ) -> MemoryQueryResult:
        text = query if isinstance(query, str) else str(query.content)
        if not text.strip():
            return MemoryQueryResult(results=[])
        found: SearchResult = await self.port.acall(
            "search", text, user_id=self.user_id, k=self._config.k
        )
        return MemoryQueryResult(
            results=[
                MemoryContent(
                    content=hit_line(hit),
                    mime_type=MemoryMimeType.TEXT,
                    metadata={
                        "id": hit.fact.id,
                        "valid_from": hit.fact.valid_from.isoformat(),
                        "valid_to": hit.fact.valid_to.isoformat() if hit.fact.valid_to else None,
                        "score": hit.score,
                    },
                )
                for hit in found.hits
            ]
        )

    async def add(
        self, content: MemoryContent, cancellation_token: CancellationToken | None = None
    ) -> None:
        """A statement for the user's memory (through the extractor when hmem has one)."""
        await self.writer.write(self.user_id, [Turn("user", str(content.content))])

    async def clear(self) -> None:
        raise PermissionError(
            "erasing a user's memory is not the agent's call: use hmem's erase_user "
            "(the API's DELETE /v1/users/{user_id}) deliberately"
        )

    async def close(self) -> None:
        backend = self.port.backend
        if self.port.is_async:
            await backend.shutdown()  # type: ignore[misc]
        else:
            backend.shutdown()

    def _to_config(self) -> HmemMemoryConfig:
        return self._config

    @classmethod
    def _from_config(cls, config: HmemMemoryConfig) -> Self:
        return cls(
            user_id=config.user_id,
            api_url=config.api_url,
            api_key_env=config.api_key_env,
            k=config.k,
            learn=config.learn,
            session_id=config.session_id,
        )


def _backend(api_url: str | None, api_key_env: str) -> Backend:
    if api_url is None:
        from hmem import Memory as Embedded

        return Embedded()
    from hmem import AsyncClient

    key = os.environ.get(api_key_env)
    if not key:
        raise ValueError(f"HmemMemory at {api_url} needs an API key in ${api_key_env}")
    return AsyncClient(api_url, api_key=key)


def _ours(message: dict[str, Any]) -> bool:
    return message.get("type") == "SystemMessage" and str(message.get("content", "")).startswith(
        HEADER
    )


def _text(message: dict[str, Any]) -> str:
    content = UserMessage.model_validate(message).content
    return (
        content if isinstance(content, str) else " ".join(c for c in content if isinstance(c, str))
    )
