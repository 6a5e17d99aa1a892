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
| ``add_session_to_memory(session)``  | each text event ``remember``-ed verbatim (its text,       |
|                                     | author, role, id and time come back as given; ADK re-     |
|                                     | sends the session every turn: an event is written once);  |
|                                     | with a model, ``add`` also extracts facts beside them     |
| ``add_events_to_memory(events)``    | the same, for a delta                                     |
| ``add_memory(memories)``            | ``remember``: text, id, author, timestamp and             |
|                                     | ``custom_metadata`` come back as given (at most ~180      |
|                                     | characters of them: more is a ``ValueError``, nothing     |
|                                     | stored); valid_from, valid_to, supersedes, category,      |
|                                     | importance in it also give the fact its structure         |
| ``search_memory(query)``            | ``search``, cut to ADK's relevance: entries sharing a     |
|                                     | word with the query (ADK's own word rule: Unicode words,  |
|                                     | CJK substrings), most shared words first, at most ``k``;  |
|                                     | with an embedder also paraphrases (cosine >=              |
|                                     | ``min_similarity``); nothing when nothing matches.        |
|                                     | Time-boxed (``recall_timeout``): hmem down or slow = no   |
|                                     | memories and a warning, never a failed turn               |
| ``delete_memory(memory_id)``        | ``close`` (a retraction: restorable, history kept)        |

The hmem user is ADK's ``user_id`` as given when hmem accepts it as a user name
(letters, digits and ``. @ -``); any other id is mapped deterministically and one-to-one
by ``user_name``: ``"adk_"`` + the id with ``_`` and every other character hmem does not
take written as ``_`` + its hex code point (``user:42`` -> ``adk_user_3a42``,
``other-user/user`` -> ``adk_other-user_2fuser``); an id that would exceed 128 characters
keeps a readable head and a SHA-256 tail. ``scope_by_app=True`` gives every app its own
memory of the user (``by_app``), and ``user_of`` takes any mapping of one's own; a model
never chooses the user. ``close()`` closes only a backend the service built (from
``uri``), never one it was handed. ``adk web --memory_service_uri=hmem://host:8000`` works
with the ``services.yaml`` of ``examples/google_adk/`` (ADK builds
``HmemMemoryService(uri=...)``).
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlparse

from hmem.errors import NotFoundError, PolicyRefusal
from hmem.faces.adapters._adk_names import by_app, shared_words, user_name, words_of
from hmem.faces.adapters._core import (
    RECALL_TIMEOUT,
    Backend,
    Port,
    check_user,
    fail_open,
    missing,
    parse_when,
)
from hmem.faces.adapters._turns import Turn, TurnWriter, hit_line
from hmem.recall.models import Hit, SearchResult

try:
    from google.adk.events.event import Event
    from google.adk.memory import BaseMemoryService
    from google.adk.memory.base_memory_service import SearchMemoryResponse
    from google.adk.memory.memory_entry import MemoryEntry
    from google.adk.sessions.session import Session
    from google.genai import types
except ImportError as exc:  # the framework is the google-adk extra
    raise missing("google-adk", "google-adk") from exc

__all__ = ["HmemMemoryService", "backend_from_uri", "by_app", "register", "user_name"]

SOURCE = "google-adk"
# a verbatim event's fact: its source is this prefix and a JSON envelope (event id,
# author, role, timestamp) so that the entry comes back as ADK handed it in
EVENT_SOURCE = f"{SOURCE}:event:"
# an add_memory entry's fact: this prefix and a JSON envelope (entry id, author,
# timestamp, custom_metadata) so that the entry comes back as it was added
ENTRY_SOURCE = f"{SOURCE}:entry:"
_SOURCE_MAX = 200  # hmem keeps a fact's source in at most 200 characters
UserOf = Callable[[str, str], str]
log = logging.getLogger(__name__)
_ID_SPACE = uuid.UUID("4f0d3c2e-6a1b-5c7d-9e8f-0a1b2c3d4e5f")


def _same_user(app_name: str, user_id: str) -> str:
    return user_name(user_id)


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
    service registry passes it: the service then owns and closes it). ``extract``:
    None extracts facts with hmem's model when the backend has one (beside the verbatim
    events), True insists, False never asks. ``k``: entries per search (ADK's 10);
    ``min_similarity``: the cosine at which a hit that shares no word with the query
    still counts (needs an embedder; None: words only); ``recall_timeout``: seconds a
    search may take before it answers with no memories. ``scope_by_app``: one memory
    per app and user. ``background=True`` queues extraction (a worker must run)."""

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        uri: str | None = None,
        user_of: UserOf | None = None,
        scope_by_app: bool = False,
        extract: bool | None = None,
        background: bool = False,
        k: int = 10,
        min_similarity: float | None = 0.75,
        recall_timeout: float = RECALL_TIMEOUT,
        candidates: int = 50,
        **registry_kwargs: Any,  # ADK's registry adds agents_dir; nothing of it is needed
    ) -> None:
        self._owns_backend = backend is None
        if backend is None:
            if uri is None:
                raise ValueError("HmemMemoryService needs a backend or a uri")
            backend = backend_from_uri(uri)
        self.port = Port(backend)
        self.user_of: UserOf = user_of or (by_app if scope_by_app else _same_user)
        self.k = k
        self.min_similarity = min_similarity
        self.recall_timeout = recall_timeout
        self.candidates = max(candidates, k)
        self.writer = TurnWriter(self.port, source=SOURCE, extract=extract, background=background)
        self._written: set[tuple[str, str]] = set()

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
        """Every text event verbatim (once: its fact id is derived from the user and the
        event id), then, with a model, the extractor's facts from the new turns."""
        user = self._user(app_name, user_id)
        texts = [(event, text) for event in events if (text := _event_text(event)) is not None]
        for event, text in texts:
            key = (user, event.id)
            if event.id and key in self._written:
                continue
            try:
                await self._remember_event(user, event, text)
            except PolicyRefusal as refused:  # a secret: not stored, the session goes on
                log.warning("hmem refused event %s: %s", event.id, refused)
                continue
            if event.id:
                self._written.add(key)
        if self.writer.extract is False:
            return
        turns = [_turn(event, text) for event, text in texts]
        hmem_session = f"{app_name}/{session_id}"[:200] if session_id else None
        await self.writer.write(
            user, turns, session_id=hmem_session, track=(user, hmem_session or "")
        )

    async def _remember_event(self, user: str, event: Event, text: str) -> None:
        at = datetime.fromtimestamp(event.timestamp, UTC) if event.timestamp else None
        envelope = {
            "id": event.id,
            "author": event.author,
            "role": event.content.role if event.content else None,
            "ts": event.timestamp,
        }
        source = EVENT_SOURCE + json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
        if len(source) > 200:  # an unusually long author or id: keep what identifies it
            envelope["author"] = str(event.author)[:40]
            envelope["id"] = str(event.id)[:60]
            source = EVENT_SOURCE + json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
        await self.port.acall(
            "remember",
            text,
            user_id=user,
            source=source[:200],
            observed_at=at,
            valid_from=at,
            speaker=event.author or None,
            fact_id=_fact_id(user, event.id) if event.id else None,
            infer=False,  # a verbatim turn closes nothing: it is what was said
        )

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Each entry as one fact: its text, and its id, author, timestamp and
        ``custom_metadata`` kept with it (they come back as given). The keys
        ``valid_from``, ``valid_to``, ``category``, ``importance`` and ``supersedes`` also
        give the fact its structure. An entry whose id, author, timestamp and metadata
        take more than hmem keeps with a fact is refused (``ValueError``) before anything
        is written."""
        user = self._user(app_name, user_id)
        todo = []
        for entry in memories:
            meta = {**(custom_metadata or {}), **entry.custom_metadata}
            fields = _fields(entry, meta)
            if fields is not None:
                fields["source"] = _entry_source(entry, meta)
                if entry.id:
                    fields["fact_id"] = _fact_id(user, entry.id)
                todo.append(fields)
        for fields in todo:  # no structure given: hmem infers it from the words
            await self.port.acall("remember", fields.pop("text"), user_id=user, **fields)

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Closes the entry's fact (a retraction): it leaves current recall, stays in
        its history and can be restored. Erasure is not the agent's call."""
        if not memory_id:
            raise ValueError("delete_memory needs the memory_id of one entry (MemoryEntry.id)")
        user = self._user(app_name, user_id)
        try:
            await self.port.acall(
                "close", _fact_id(user, memory_id), user_id=user, reason="retraction"
            )
        except NotFoundError:  # not an event's id: a fact id of hmem's own
            await self.port.acall("close", memory_id, user_id=user, reason="retraction")

    # -- reads --------------------------------------------------------------------------
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        user = self._user(app_name, user_id)
        if not query.strip():
            return SearchMemoryResponse()
        found = await fail_open(self._search(user, query), timeout=self.recall_timeout)
        return SearchMemoryResponse() if found is None else found

    async def _search(self, user: str, query: str) -> SearchMemoryResponse:
        found: SearchResult = await self.port.acall(
            "search", query, user_id=user, k=self.candidates
        )
        words = words_of(query)
        scored: list[tuple[tuple[float, ...], Hit]] = []
        for hit in found.hits:  # a replaced fact too, when hmem finds it relevant
            shared = shared_words(words, hit.fact.text)
            similar = hit.raw.get("dense", 0.0)
            if shared:  # ADK's rule: most shared words first, then in the order told
                scored.append(((0, -shared, hit.fact.ingested_at.timestamp()), hit))
            elif self.min_similarity is not None and similar >= self.min_similarity:
                scored.append(((1, -similar, 0.0), hit))
        scored.sort(key=lambda pair: pair[0])
        return SearchMemoryResponse(memories=[_entry(hit) for _, hit in scored[: self.k]])

    async def close(self) -> None:
        """Closes the backend this service built from ``uri``; a backend handed in
        belongs to its owner and stays open."""
        if not self._owns_backend:
            return
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


def _fact_id(user: str, event_id: str) -> str:
    """The fact of one event (or entry) id of one user: the same id twice is one fact."""
    return "adk-" + uuid.uuid5(_ID_SPACE, json.dumps([user, event_id])).hex


def _event_text(event: Event) -> str | None:
    """An event's text as ADK's own memory reads it (its text parts joined by a space);
    tool calls, thoughts and partial (streamed) chunks are not remembered."""
    if event.partial or event.content is None or not event.content.parts:
        return None
    text = " ".join(p.text for p in event.content.parts if p.text and not p.thought)
    return text if text.strip() else None


def _turn(event: Event, text: str) -> Turn:
    said_by_user = event.author == "user" or (
        event.content is not None and event.content.role == "user"
    )
    at = datetime.fromtimestamp(event.timestamp, UTC) if event.timestamp else None
    return Turn(
        role="user" if said_by_user else "assistant", text=text, at=at, key=event.id or None
    )


def _entry(hit: Hit) -> MemoryEntry:
    """A hit as ADK's entry: a verbatim event or an ``add_memory`` entry exactly as it
    was added (text, author, role, id, timestamp; an entry's ``custom_metadata``), any
    other fact as its dated line and its world date;
    hmem's own reading (window, what replaced what, score) in ``custom_metadata``."""
    fact = hit.fact
    meta: dict[str, Any] = {
        "hmem_fact_id": fact.id,
        "valid_from": fact.valid_from.isoformat(),
        "valid_to": _iso(fact.valid_to),
        "known_from": fact.known_from.isoformat(),
        "known_to": _iso(fact.known_to),
        "replaced_by": [s.fact.id for s in hit.successors],
        "replaces": [s.fact.id for s in hit.predecessors],
        "score": hit.score,
    }
    if fact.source.startswith(EVENT_SOURCE):
        envelope = json.loads(fact.source[len(EVENT_SOURCE) :])
        ts = envelope.get("ts")
        return MemoryEntry(
            id=envelope.get("id") or fact.id,
            content=types.Content(role=envelope.get("role"), parts=[types.Part(text=fact.text)]),
            author=envelope.get("author"),
            timestamp=datetime.fromtimestamp(ts).isoformat() if ts else None,
            custom_metadata=meta,
        )
    if fact.source.startswith(ENTRY_SOURCE):
        given = json.loads(fact.source[len(ENTRY_SOURCE) :])
        return MemoryEntry(
            id=given.get("id") or fact.id,
            content=types.Content(role=given.get("role"), parts=[types.Part(text=fact.text)]),
            author=given.get("author"),
            timestamp=given.get("ts") or fact.valid_from.isoformat(),
            custom_metadata={**meta, **given.get("meta", {})},  # as given, hmem's beside
        )
    return MemoryEntry(
        id=fact.id,
        # hmem's own fact (extracted, or from another face): as a dated line that says
        # what replaced it, so that a model does not take a past fact for a current one
        content=types.Content(role="user", parts=[types.Part(text=hit_line(hit))]),
        author=fact.speaker,
        # preload_memory shows it as "Time: ...": when the fact became true
        timestamp=fact.valid_from.isoformat(),
        custom_metadata=meta,
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


def _entry_source(entry: MemoryEntry, meta: Mapping[str, object]) -> str:
    """The envelope that brings an ``add_memory`` entry back as given."""
    role = entry.content.role if entry.content else None
    given: dict[str, Any] = {
        "id": entry.id,
        "author": entry.author,
        "ts": entry.timestamp,
        "role": role,
    }
    given = {k: v for k, v in given.items() if v is not None}
    if meta:
        given["meta"] = dict(meta)
    try:
        source = ENTRY_SOURCE + json.dumps(given, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"an entry's custom_metadata must be JSON: {exc}") from exc
    if len(source) > _SOURCE_MAX:
        raise ValueError(
            "hmem keeps a memory entry's id, author, timestamp and custom_metadata with its "
            f"fact in at most {_SOURCE_MAX - len(ENTRY_SOURCE)} characters of JSON; these "
            f"take {len(source) - len(ENTRY_SOURCE)}: nothing was stored"
        )
    return source


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
