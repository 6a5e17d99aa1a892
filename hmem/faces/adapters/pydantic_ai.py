"""Pydantic AI: hmem's tools as a toolset, recalled memory in the instructions.

::

    agent = Agent(model, deps_type=Deps, capabilities=[HmemMemory(client)])
    await agent.run("Where did I live before Paris?", deps=Deps(user_id="maya"))

* ``hmem_toolset(backend)`` — a ``FunctionToolset`` with ``recall``, ``remember``,
  ``forget`` (closes a fact: restorable) and ``history``; the texts are the MCP server's.
* ``hmem_instructions(backend)`` — a dynamic instruction: hmem's dated memory block for
  the run's prompt, so the model sees what is known (and what changed) before it answers.
* ``HmemMemory(backend)`` — both, as one capability (``Agent(capabilities=[...])``).

The user is read from the run's deps (``deps.user_id``, ``deps["user_id"]``, or your
``user_of(ctx)``), never from a tool argument; no tool erases anything.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hmem.errors import HmemError
from hmem.faces.adapters._core import Backend, Port, check_user, missing

try:
    from pydantic_ai import FunctionToolset, ModelRetry, RunContext
    from pydantic_ai.capabilities import AbstractCapability
except ImportError as exc:  # the framework is the pydantic-ai extra
    raise missing("pydantic-ai-slim", "pydantic-ai") from exc

__all__ = ["HmemMemory", "UserOf", "hmem_instructions", "hmem_toolset", "user_from_deps"]

UserOf = Callable[[RunContext[Any]], str]


def user_from_deps(ctx: RunContext[Any]) -> str:
    """The user of a run: ``deps.user_id`` or ``deps["user_id"]``."""
    deps = ctx.deps
    user = deps.get("user_id") if isinstance(deps, Mapping) else getattr(deps, "user_id", None)
    if user is None:
        raise ValueError(
            "hmem needs the run's user: pass deps with a user_id (or give user_of=...)"
        )
    return check_user(user)


def _prompt(ctx: RunContext[Any]) -> str:
    if isinstance(ctx.prompt, str):
        return ctx.prompt
    return " ".join(part for part in ctx.prompt or () if isinstance(part, str))


def hmem_toolset(
    backend: Backend, *, user_of: UserOf = user_from_deps, id: str = "hmem"
) -> FunctionToolset[Any]:
    """``recall``, ``remember``, ``forget``, ``history`` for the run's user."""
    port = Port(backend)

    async def guard(call: Awaitable[str]) -> str:
        try:
            return await call
        except HmemError as exc:  # the model may fix its arguments and retry
            raise ModelRetry(f"{type(exc).__name__}: {exc}") from exc

    async def recall(
        ctx: RunContext[Any],
        query: str = "",
        as_of: str | None = None,
        as_of_event: str | None = None,
    ) -> str:
        """What is known about the user that answers `query` (empty: all current
        facts). Replaced facts are marked [replaced]. as_of: what was believed at that
        instant; as_of_event: what was true in the world then (ISO 8601 with a zone)."""
        user = user_of(ctx)
        return await guard(port.recall(user, query, as_of=as_of, as_of_event=as_of_event))

    async def remember(
        ctx: RunContext[Any],
        text: str,
        supersedes: list[str] | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
    ) -> str:
        """Remember one self-contained fact about the user (real names, absolute
        dates). supersedes: ids of facts it replaces; valid_from / valid_to: when it
        became / stopped being true (ISO 8601 with a zone, e.g. 2026-03-01T00:00:00Z)."""
        user = user_of(ctx)
        return await guard(
            port.remember(
                user,
                text,
                supersedes=supersedes or (),
                valid_from=valid_from,
                valid_to=valid_to,
                source="pydantic-ai",
            )
        )

    async def forget(ctx: RunContext[Any], fact_id: str, never_true: bool = False) -> str:
        """Stop believing a fact (it stays in history and can be restored).
        never_true=True when it was a mistake rather than something that ended."""
        return await guard(port.forget(user_of(ctx), fact_id, never_true=never_true))

    async def history(ctx: RunContext[Any], fact_id: str) -> str:
        """A fact with what it replaced and what replaced it, with dates."""
        return await guard(port.history(user_of(ctx), fact_id))

    return FunctionToolset([recall, remember, forget, history], id=id)


def hmem_instructions(
    backend: Backend, *, user_of: UserOf = user_from_deps, k: int = 10
) -> Callable[[RunContext[Any]], Awaitable[str]]:
    """A dynamic instruction: the memory block hmem recalls for the run's prompt."""
    port = Port(backend)

    async def memory(ctx: RunContext[Any]) -> str:
        query = _prompt(ctx)
        if not query.strip():
            return ""
        return await port.context(user_of(ctx), query, k=k)

    return memory


@dataclass
class HmemMemory(AbstractCapability[Any]):
    """hmem's toolset and the recalled-memory instruction, as one capability."""

    backend: Backend
    user_of: UserOf = field(default=user_from_deps)
    k: int = 10
    tools: bool = True

    def get_toolset(self) -> FunctionToolset[Any] | None:
        return hmem_toolset(self.backend, user_of=self.user_of) if self.tools else None

    def get_instructions(self) -> Callable[[RunContext[Any]], Awaitable[str]]:
        return hmem_instructions(self.backend, user_of=self.user_of, k=self.k)
