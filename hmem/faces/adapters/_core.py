"""What every framework adapter shares: the backend port, the user check, the texts.

``Port`` wraps an embedded ``Memory`` or ``AsyncMemory``, a ``Client`` or an
``AsyncClient`` (hmem/surface.py) behind one async surface (a sync backend runs in a
worker thread, as ``AsyncMemory`` does) and one sync surface (refused for an async
backend, which only an event loop can drive).
The tool bodies (``recall``, ``remember``, ``forget``, ``history``) return the texts
the MCP server returns, so a model reads the same lines through every framework.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeAlias, TypeVar

from hmem.async_memory import AsyncMemory
from hmem.errors import HmemError, ValidationError
from hmem.faces._lines import fact_line, history_text, parse_when
from hmem.faces.client import AsyncClient, Client
from hmem.graph.apikeys import check_user_name
from hmem.memory import Memory
from hmem.models import Fact, FactHistory, SupersedeReason, WriteResult
from hmem.recall.models import SearchResult

__all__ = [
    "RECALL_TIMEOUT",
    "Backend",
    "Port",
    "check_user",
    "fail_open",
    "format_fact",
    "memory_block",
    "missing",
    "parse_when",
    "scoped_user",
    "tool_error",
]

Backend: TypeAlias = Memory | AsyncMemory | Client | AsyncClient
T = TypeVar("T")
RECALL_TIMEOUT = 10.0  # seconds a recall on an agent's run path may take

_log = logging.getLogger("hmem.faces.adapters")

MEMORY_HEADER = "What hmem remembers about the user (dated; [replaced] = no longer true):"
NOTHING = "Nothing is remembered about that yet."


def missing(framework: str, extra: str) -> ImportError:
    """The error an adapter module raises when its framework is not installed."""
    return ImportError(
        f"this hmem adapter needs {framework}: pip install 'hmem[{extra}]' "
        f"(the {extra} extra pins the versions it is tested with)"
    )


async def fail_open(call: Awaitable[T], *, timeout: float, what: str = "recall") -> T | None:
    """A recall on an agent's run path, time-boxed: hmem down (Neo4j stopped, the API
    unreachable), slow or failing answers None within ``timeout`` seconds and logs why
    (never the query), so the run goes on without memories. A caller's mistake (a bad
    user id, a wrong type) is still raised."""
    try:
        return await asyncio.wait_for(call, timeout)
    except (ValidationError, TypeError):
        raise
    except Exception as exc:  # hmem down, slow or failing: fail open
        _log.warning(
            "hmem %s failed (%s: %s); the agent continues without memories",
            what,
            type(exc).__name__,
            exc,
        )
        return None


def check_user(user_id: object) -> str:
    """A user id taken from the framework's identity, checked as the API checks it."""
    if not isinstance(user_id, str):
        raise ValidationError(f"the user id must be a string, not {type(user_id).__name__}")
    return check_user_name(user_id)


SCOPE_MARKS = {"agent_id": ".agent-", "run_id": ".run-"}
_SCOPE_ID = re.compile(r"[A-Za-z0-9_-]{1,48}")


def scoped_user(user_id: str, *, agent_id: str | None = None, run_id: str | None = None) -> str:
    """The hmem user holding one agent's (and/or one run's) memory of ``user_id``, as
    mem0's ``agent_id`` / ``run_id`` scope it: ``<user_id>.agent-<agent_id>.run-<run_id>``
    (each part only when given). Each id is 1-48 letters, digits, ``_`` or ``-`` (no
    ``.``), and a ``user_id`` already holding ``.agent-`` or ``.run-`` is refused, so no
    two scopes, and no plain user, share one hmem user. hmem's erasure erases a scope as
    that user (``erase_user(scoped_user(...))``)."""
    user = check_user(user_id)
    for mark in SCOPE_MARKS.values():
        if mark in user:
            raise ValidationError(f"a user id holding {mark!r} is reserved for scopes")
    for name, value in (("agent_id", agent_id), ("run_id", run_id)):
        if value is None:
            continue
        if not isinstance(value, str) or not _SCOPE_ID.fullmatch(value):
            raise ValidationError(f"an {name} is 1-48 letters, digits, '_' or '-'")
        user += SCOPE_MARKS[name] + value
    return check_user(user)


def format_fact(fact: Fact, now: datetime | None = None) -> str:
    """One line a model can read and cite: id, text, world window (as the MCP server);
    ``[replaced]`` once it is no longer current at ``now``, the view's world time
    (default now): ended by then, or withdrawn (a fact replaced from a later day is
    still current until then: docs/time.md)."""
    moment = now or datetime.now(UTC)
    ended = fact.valid_to is not None and fact.valid_to <= moment
    replaced = " [replaced]" if ended or fact.withdrawn_at is not None else ""
    return fact_line(fact, moment) + replaced


def memory_block(result: SearchResult) -> str:
    """Recalled memory for a model's input: the search's dated context block."""
    if not result.hits:
        return f"{MEMORY_HEADER}\n{NOTHING}"
    return f"{MEMORY_HEADER}\n{result.context}"


class Port:
    """One backend behind async and sync calls with ``Memory``'s names."""

    def __init__(self, backend: Backend) -> None:
        if not isinstance(backend, Memory | AsyncMemory | Client | AsyncClient):
            raise TypeError(
                "an hmem adapter needs a hmem.Memory, hmem.AsyncMemory, hmem.Client or "
                "hmem.AsyncClient, "
                f"not {type(backend).__name__}"
            )
        self.backend = backend

    @property
    def is_async(self) -> bool:
        return isinstance(self.backend, AsyncMemory | AsyncClient)

    async def acall(self, name: str, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self.backend, name)
        if self.is_async:
            return await method(*args, **kwargs)
        return await asyncio.to_thread(functools.partial(method, *args, **kwargs))

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.is_async:
            raise TypeError(
                f"an hmem.{type(self.backend).__name__} serves only the async calls "
                "(ainvoke, abatch, ...); "
                "pass a hmem.Client or hmem.Memory for sync use"
            )
        return getattr(self.backend, name)(*args, **kwargs)

    # -- the tool bodies, shared by every framework's tools ------------------------------
    async def recall(
        self,
        user_id: str,
        query: str = "",
        *,
        as_of: str | datetime | None = None,
        as_of_event: str | datetime | None = None,
        limit: int = 50,
    ) -> str:
        when = {
            "as_of": parse_when("as_of", as_of),
            "as_of_event": parse_when("as_of_event", as_of_event),
        }
        view = when["as_of_event"] or when["as_of"]  # the view's world time
        if not query.strip():
            facts: list[Fact] = await self.acall("facts", user_id=user_id, limit=limit, **when)
            lines = [format_fact(f, view) for f in facts]
        else:
            found: SearchResult = await self.acall("search", query, user_id=user_id, **when)
            lines = [format_fact(h.fact, view) for h in found.hits]
        return "\n".join(lines) if lines else NOTHING

    async def context(self, user_id: str, query: str, *, k: int = 10) -> str:
        """The memory block for a prompt (a user-role item / instructions)."""
        found: SearchResult = await self.acall("search", query, user_id=user_id, k=k)
        return memory_block(found)

    async def remember(
        self,
        user_id: str,
        text: str,
        *,
        supersedes: Sequence[str] = (),
        valid_from: str | datetime | None = None,
        valid_to: str | datetime | None = None,
        source: str,
    ) -> str:
        result: WriteResult = await self.acall(
            "remember",
            text,
            user_id=user_id,
            supersedes=list(supersedes),
            valid_from=parse_when("valid_from", valid_from),
            valid_to=parse_when("valid_to", valid_to),
            source=source,
        )
        if not result.added:
            return "Already known; nothing new was stored."
        replaced = f"; it replaces {', '.join(result.superseded)}" if result.superseded else ""
        return f"Remembered as {result.added[0]}{replaced}."

    async def forget(self, user_id: str, fact_id: str, *, never_true: bool = False) -> str:
        reason = SupersedeReason.USER_EDIT if never_true else SupersedeReason.RETRACTION
        fact: Fact = await self.acall("close", fact_id, user_id=user_id, reason=reason)
        return f"Forgotten: {fact.id} is closed ({reason.value}); it can be restored."

    async def history(self, user_id: str, fact_id: str) -> str:
        chain: FactHistory = await self.acall("history", fact_id, user_id=user_id)
        return history_text(chain, format_fact)


def tool_error(exc: HmemError) -> str:
    """What a tool tells the model when hmem refuses (never the stored text)."""
    return f"{type(exc).__name__}: {exc}"
