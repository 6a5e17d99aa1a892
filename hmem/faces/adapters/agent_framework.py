"""Microsoft Agent Framework: ``HmemContextProvider``, a ``ContextProvider`` over hmem.

    from agent_framework import Agent
    from hmem.faces.adapters.agent_framework import HmemContextProvider

    agent = Agent(client=..., context_providers=[HmemContextProvider(backend, user_id="maya")])
    session = agent.create_session()
    await agent.run("I moved from London to Paris last month.", session=session)

| Agent Framework | hmem                                                                    |
|-----------------|-------------------------------------------------------------------------|
| ``before_run``  | ``search`` with the input text → a user-role message of dated facts     |
|                 | (``context.extend_messages``), as the first-party Mem0 provider does    |
| ``after_run``   | ``add`` of the input and response messages not sent before, with the    |
|                 | session's id (model-free: the user's turns as said)                     |

The user is ``user_id``, fixed at construction, never the model's to choose; this
provider offers no tool, and erases nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmem.faces.adapters._core import Backend, Port, check_user, missing
from hmem.faces.adapters._turns import Turn, TurnWriter, dated_lines
from hmem.recall.models import SearchResult

try:
    from agent_framework import AgentSession, ContextProvider, Message, SessionContext
except ImportError as exc:  # the framework is the agent-framework extra
    raise missing("agent-framework-core", "agent-framework") from exc

__all__ = ["HmemContextProvider"]

SOURCE = "agent-framework"
HEADER = "## Memories about the user (hmem; dates: when true; replaced = no longer true)"


class HmemContextProvider(ContextProvider):
    """Recalls before each run and remembers after it, for one user."""

    def __init__(
        self,
        backend: Backend,
        *,
        user_id: str,
        source_id: str = "hmem",
        k: int = 10,
        extract: bool | None = None,
        background: bool = False,
    ) -> None:
        super().__init__(source_id)
        self.user_id = check_user(user_id)
        self.port = Port(backend)
        self.k = k
        self.writer = TurnWriter(self.port, source=SOURCE, extract=extract, background=background)

    async def before_run(
        self,
        *,
        agent: Any,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        query = " ".join(m.text for m in context.input_messages if m.role == "user" and m.text)
        if not query.strip():
            return
        found: SearchResult = await self.port.acall("search", query, user_id=self.user_id, k=self.k)
        if found.hits:
            lines = "\n".join(f"- {line}" for line in dated_lines(found))
            context.extend_messages(self.source_id, [Message("user", [f"{HEADER}\n{lines}"])])

    async def after_run(
        self,
        *,
        agent: Any,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
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
        await self.writer.write(
            self.user_id,
            turns,
            session_id=session.session_id,
            track=(self.user_id, session.session_id),
        )
