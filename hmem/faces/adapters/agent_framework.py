"""Microsoft Agent Framework: ``HmemContextProvider``, a ``ContextProvider`` over hmem.

    from agent_framework import Agent
    from hmem.faces.adapters.agent_framework import HmemContextProvider

    async with HmemContextProvider(backend, user_id="maya") as memory:
        agent = Agent(client=..., context_providers=[memory])
        session = agent.create_session()
        await agent.run("I moved from London to Paris last month.", session=session)

| Agent Framework | hmem                                                                    |
|-----------------|-------------------------------------------------------------------------|
| ``before_run``  | ``search`` with the input text → a user-role message: ``context_prompt``|
|                 | then the dated facts (``context.extend_messages``), as the first-party  |
|                 | Mem0 provider does. Time-boxed (``recall_timeout``): hmem down or slow  |
|                 | = no memories and a warning, never a failed run                         |
| ``after_run``   | ``add`` of the input and response messages not sent before, with the    |
|                 | session's id (model-free: the user's turns as said)                     |
| ``aclose`` /    | closes the backend only when ``close_backend=True`` (the provider made  |
| ``async with``  | it its own); a backend you pass stays yours, open                       |

Scoping: ``user_id`` is the memory's owner, fixed at construction, never the model's to
choose. ``agent_id`` gives an agent a memory of the user of its own (like Mem0's
``agent_id``): it reads and writes the hmem user ``<user_id>.agent-<agent_id>``
(``agent_user``), so other agents (and the user's unscoped memory) never see it; hmem's
erasure erases it as that user (``erase_user(provider.memory_user)``).
This provider offers no tool, and erases nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

from hmem.errors import ValidationError
from hmem.faces.adapters._core import (
    RECALL_TIMEOUT,
    Backend,
    Port,
    check_user,
    fail_open,
    missing,
)
from hmem.faces.adapters._turns import Turn, TurnWriter, dated_lines, write_unrefused
from hmem.recall.models import SearchResult

try:
    from agent_framework import AgentSession, ContextProvider, Message, SessionContext
except ImportError as exc:  # the framework is the agent-framework extra
    raise missing("agent-framework-core", "agent-framework") from exc

__all__ = ["DEFAULT_CONTEXT_PROMPT", "HEADER", "HmemContextProvider", "agent_user"]

SOURCE = "agent-framework"
DEFAULT_CONTEXT_PROMPT = (
    "## Memories about the user (hmem; dates: when true; replaced = no longer true)"
)
HEADER = DEFAULT_CONTEXT_PROMPT  # the name earlier releases exported
AGENT_MARK = ".agent-"
_AGENT = re.compile(r"[A-Za-z0-9_-]{1,48}")


def agent_user(user_id: str, agent_id: str) -> str:
    """The hmem user holding one agent's memory of ``user_id``: ``<user_id>.agent-<agent_id>``.

    ``agent_id`` is 1-48 letters, digits, ``_`` or ``-`` (no ``.``), and a ``user_id``
    that already holds ``.agent-`` is refused, so no two (user, agent) pairs, and no
    plain user of this provider, share one hmem user."""
    user = check_user(user_id)
    if AGENT_MARK in user:
        raise ValidationError(f"a user id holding {AGENT_MARK!r} is reserved for agent scopes")
    if not isinstance(agent_id, str) or not _AGENT.fullmatch(agent_id):
        raise ValidationError("an agent_id is 1-48 letters, digits, '_' or '-'")
    return check_user(f"{user}{AGENT_MARK}{agent_id}")


class HmemContextProvider(ContextProvider):
    """Recalls before each run and remembers after it, for one user."""

    def __init__(
        self,
        backend: Backend,
        *,
        user_id: str,
        agent_id: str | None = None,
        context_prompt: str = DEFAULT_CONTEXT_PROMPT,
        source_id: str = "hmem",
        k: int = 10,
        extract: bool | None = None,
        background: bool = False,
        close_backend: bool = False,
        recall_timeout: float = RECALL_TIMEOUT,
    ) -> None:
        super().__init__(source_id)
        self.user_id = check_user(user_id)
        if AGENT_MARK in self.user_id:
            raise ValidationError(f"a user id holding {AGENT_MARK!r} is reserved for agent scopes")
        self.agent_id = agent_id
        self.memory_user = self.user_id if agent_id is None else agent_user(user_id, agent_id)
        self.context_prompt = context_prompt
        self.port = Port(backend)
        self.k = k
        self.recall_timeout = recall_timeout
        self.writer = TurnWriter(self.port, source=SOURCE, extract=extract, background=background)
        self.close_backend = close_backend
        self.closed = False

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop serving runs; shut the backend down only if ``close_backend=True``."""
        if self.closed:
            return
        self.closed = True
        if self.close_backend:
            await self.port.acall("shutdown")

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("this HmemContextProvider is closed")

    async def before_run(
        self,
        *,
        agent: Any,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        self._check_open()
        query = " ".join(m.text for m in context.input_messages if m.role == "user" and m.text)
        if not query.strip():
            return
        found: SearchResult | None = await fail_open(
            self.port.acall("search", query, user_id=self.memory_user, k=self.k),
            timeout=self.recall_timeout,
        )
        if found is not None and found.hits:
            lines = "\n".join(f"- {line}" for line in dated_lines(found))
            text = f"{self.context_prompt}\n{lines}"
            context.extend_messages(self.source_id, [Message("user", [text])])

    async def after_run(
        self,
        *,
        agent: Any,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        self._check_open()
        said: Sequence[Message] = list(context.input_messages)
        if context.response is not None:
            said = [*said, *context.response.messages]
        turns = [
            Turn(
                "user" if m.role == "user" else "assistant",
                m.text,
                key=m.message_id or None,
            )
            for m in said
            if m.role in ("user", "assistant") and m.text and m.text.strip()
        ]
        await write_unrefused(
            self.writer,
            self.memory_user,
            turns,
            session_id=session.session_id,
            track=(self.memory_user, session.session_id),
        )
