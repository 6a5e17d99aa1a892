"""Google ADK: ``HmemMemoryService``, a ``BaseMemoryService`` over hmem.

    from google.adk.runners import Runner
    from google.adk.tools import preload_memory
    from hmem.faces.adapters.google_adk import HmemMemoryService

    agent = LlmAgent(..., tools=[preload_memory],
                     after_agent_callback=lambda callback_context:
                         callback_context.add_session_to_memory())
    runner = Runner(agent=agent, app_name="travel", session_service=...,
                    memory_service=HmemMemoryService(hmem.AsyncClient(url, api_key=key)))

| ADK                                 | hmem                                                      |
|-------------------------------------|-----------------------------------------------------------|
| ``add_session_to_memory(session)``  | ``add`` of the events not sent before (ADK re-sends the   |
|                                     | whole session every turn); model-free: the user's turns   |
| ``add_events_to_memory(events)``    | the same, for a delta                                     |
| ``add_memory(memories)``            | ``remember_many`` (``custom_metadata``: valid_from,       |
|                                     | valid_to, supersedes, category, importance)               |
| ``search_memory(query)``            | ``search``: one entry per hit, its world date in          |
|                                     | ``timestamp``, its window and what replaced it in the text |
| ``delete_memory(memory_id)``        | ``close`` (a retraction: restorable, history kept)        |

The hmem user is ADK's ``user_id`` (``user_of(app_name, user_id)`` to scope by app);
a model never chooses it. ``adk web --memory_service_uri=hmem://host:8000`` works with
the ``services.yaml`` of ``examples/google_adk/`` (ADK builds ``HmemMemoryService(uri=...)``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlparse

from hmem.faces.adapters._core import Backend, Port, check_user, missing, parse_when
from hmem.faces.adapters._turns import Turn, TurnWriter, hit_line
from hmem.recall.models import SearchResult

try:
    from google.adk.events.event import Event
    from google.adk.memory import BaseMemoryService
    from google.adk.memory.base_memory_service import SearchMemoryResponse
    from google.adk.memory.memory_entry import MemoryEntry
    from google.adk.sessions.session import Session
    from google.genai import types
except ImportError as exc:  # the framework is the google-adk extra
    raise missing("google-adk", "google-adk") from exc

__all__ = ["HmemMemoryService", "backend_from_uri", "register"]

SOURCE = "google-adk"
UserOf = Callable[[str, str], str]


def _same_user(app_name: str, user_id: str) -> str:
    return user_id


def backend_from_uri(uri: str) -> Backend:
    """``hmem://host:port`` (HTTP) or ``hmems://host:port`` (HTTPS): an ``AsyncClient``
    with the key from ``HMEM_API_KEY`` (a key never sits in a URI, which ADK logs);
    ``hmem://`` with no host: an embedded ``Memory`` configured by ``HMEM_*``."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("hmem", "hmems"):
        raise ValueError(f"not an hmem URI: {parsed.scheme}:// (use hmem:// or hmems://)")
    if not parsed.netloc:
        from hmem import Memory

        return Memory()
    from hmem import AsyncClient

    key_var = parse_qs(parsed.query).get("key_env", ["HMEM_API_KEY"])[0]
    key = os.environ.get(key_var)
    if not key:
        raise ValueError(f"{uri.split('?')[0]} needs an API key in ${key_var}")
    http = "https" if parsed.scheme == "hmems" else "http"
    return AsyncClient(f"{http}://{parsed.netloc}{parsed.path}", api_key=key)


class HmemMemoryService(BaseMemoryService):
    """ADK's long-term memory in hmem, embedded or over the API.

    ``backend``: a ``Memory``, ``Client`` or ``AsyncClient`` (or ``uri``, as ADK's
    service registry passes it). ``extract``: None uses hmem's extractor when the
    backend has a model and stores the user's turns as said otherwise; ``k``: entries
    per search. ``background=True`` queues sessions (a worker must run)."""

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        uri: str | None = None,
        user_of: UserOf = _same_user,
        extract: bool | None = None,
        background: bool = False,
        k: int = 10,
        **registry_kwargs: Any,  # ADK's registry adds agents_dir; nothing of it is needed
    ) -> None:
        if backend is None:
            if uri is None:
                raise ValueError("HmemMemoryService needs a backend or a uri")
            backend = backend_from_uri(uri)
        self.port = Port(backend)
        self.user_of = user_of
        self.k = k
        self.writer = TurnWriter(self.port, source=SOURCE, extract=extract, background=background)

    def _user(self, app_name: str, user_id: str) -> str:
        return check_user(self.user_of(app_name, user_id))

    # -- writes -------------------------------------------------------------------------
    async def add_session_to_memory(self, session: Session) -> None:
        await self.add_events_to_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            events=session.events,
            session_id=session.id,
        )

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        user = self._user(app_name, user_id)
        turns = [turn for event in events if (turn := _turn(event)) is not None]
        hmem_session = f"{app_name}/{session_id}"[:200] if session_id else None
        await self.writer.write(
            user, turns, session_id=hmem_session, track=(user, hmem_session or "")
        )

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        user = self._user(app_name, user_id)
        for entry in memories:
            fields = _fields(entry, {**(custom_metadata or {}), **entry.custom_metadata})
            if fields is not None:  # no structure given: hmem infers it from the words
                await self.port.acall("remember", fields.pop("text"), user_id=user, **fields)

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Closes the fact (a retraction): it leaves current recall, stays in its
        history and can be restored. Erasure is not the agent's call."""
        if not memory_id:
            raise ValueError("delete_memory needs the memory_id of one entry (MemoryEntry.id)")
        await self.port.acall(
            "close", memory_id, user_id=self._user(app_name, user_id), reason="retraction"
        )

    # -- reads --------------------------------------------------------------------------
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        user = self._user(app_name, user_id)
        if not query.strip():
            return SearchMemoryResponse()
        found: SearchResult = await self.port.acall("search", query, user_id=user, k=self.k)
        now = datetime.now(UTC)
        return SearchMemoryResponse(
            memories=[
                MemoryEntry(
                    id=hit.fact.id,
                    content=types.Content(
                        role="user", parts=[types.Part.from_text(text=hit_line(hit, now))]
                    ),
                    author=hit.fact.speaker,
                    # preload_memory shows it as "Time: ...": when the fact became true
                    timestamp=hit.fact.valid_from.isoformat(),
                    custom_metadata={
                        "valid_from": hit.fact.valid_from.isoformat(),
                        "valid_to": _iso(hit.fact.valid_to),
                        "known_from": hit.fact.known_from.isoformat(),
                        "known_to": _iso(hit.fact.known_to),
                        "replaced_by": [s.fact.id for s in hit.successors],
                        "replaces": [s.fact.id for s in hit.predecessors],
                        "score": hit.score,
                    },
                )
                for hit in found.hits
            ]
        )

    async def close(self) -> None:
        """Closes an ``AsyncClient`` / ``Client`` backend this service was built with."""
        backend = self.port.backend
        if self.port.is_async:
            await backend.shutdown()  # type: ignore[misc]
        else:
            backend.shutdown()


def register(scheme: str = "hmem", **defaults: Any) -> None:
    """Registers ``scheme://`` (and ``{scheme}s://``) with ADK's service registry, for a
    ``services.py`` beside the agent: ``adk web --memory_service_uri=hmem://host:8000``."""
    from google.adk.cli.service_registry import get_service_registry

    def factory(uri: str, **kwargs: Any) -> HmemMemoryService:
        return HmemMemoryService(uri=uri.replace(scheme, "hmem", 1), **defaults)

    registry = get_service_registry()
    registry.register_memory_service(scheme, factory)
    registry.register_memory_service(f"{scheme}s", factory)


def _turn(event: Event) -> Turn | None:
    """A text turn of the user or a model; tool calls, thoughts and partial (streamed)
    chunks carry no statement of the user's."""
    if event.partial or event.content is None or not event.content.parts:
        return None
    text = " ".join(p.text for p in event.content.parts if p.text and not p.thought)
    if not text.strip():
        return None
    said_by_user = event.author == "user" or event.content.role == "user"
    at = datetime.fromtimestamp(event.timestamp, UTC) if event.timestamp else None
    return Turn(
        role="user" if said_by_user else "assistant", text=text, at=at, key=event.id or None
    )


def _fields(entry: MemoryEntry, meta: Mapping[str, object]) -> dict[str, Any] | None:
    """``remember``'s arguments for an entry: its text, and the structure its metadata
    (or its timestamp, for ``valid_from``) gives."""
    text = " ".join(p.text for p in entry.content.parts or [] if p.text).strip()
    if not text:
        return None
    fields: dict[str, Any] = {"text": text, "source": SOURCE}
    valid_from = meta.get("valid_from") or _entry_time(entry.timestamp)
    if valid_from is not None:
        fields["valid_from"] = parse_when("valid_from", valid_from)  # type: ignore[arg-type]
    if meta.get("valid_to") is not None:
        fields["valid_to"] = parse_when("valid_to", meta["valid_to"])  # type: ignore[arg-type]
    for name in ("category", "importance"):
        if meta.get(name) is not None:
            fields[name] = meta[name]
    supersedes = meta.get("supersedes") or []
    targets = [supersedes] if isinstance(supersedes, str) else list(supersedes)  # type: ignore[call-overload]
    if targets:
        fields["supersedes"] = [str(t) for t in targets]
    if entry.author and entry.author != "user":
        fields["speaker"] = entry.author
    return fields


def _entry_time(timestamp: str | None) -> datetime | None:
    """ADK writes naive local times (``datetime.fromtimestamp(ts).isoformat()``)."""
    if not timestamp:
        return None
    try:
        when = datetime.fromisoformat(timestamp)
    except ValueError:
        return None
    return when if when.tzinfo else when.astimezone()


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
