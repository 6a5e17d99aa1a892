"""CrewAI's storage backend over hmem (``HmemCrewMemory``'s records), and the private
event loop CrewAI's synchronous calls run an async backend on."""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from collections.abc import Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

from hmem.errors import NotFoundError
from hmem.faces.adapters._core import Port
from hmem.models import Fact, FactHistory, SupersedeReason, WriteResult

try:
    from crewai.memory.types import MemoryRecord, ScopeInfo
except ImportError as exc:  # the framework is the crewai extra
    from hmem.faces.adapters._core import missing

    raise missing("crewai", "crewai") from exc

__all__ = ["RECORD", "HmemStorage", "Loop", "in_scope"]

T = TypeVar("T")


class Loop:
    """One private event loop on a thread: CrewAI calls memory synchronously, from
    its own threads and from inside running loops, and an ``AsyncClient`` must stay
    on the loop it first ran on."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._serve, args=(loop,), daemon=True)
                self._thread.start()
                self._loop = loop
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    @staticmethod
    def _serve(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.run_forever()
        loop.close()

    def stop(self) -> None:
        with self._lock:
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
                if self._thread is not None and self._thread is not threading.current_thread():
                    self._thread.join(timeout=10)  # the loop closed before stop returns
                self._loop, self._thread = None, None


RECORD = "crewai:record"  # the source of a record CrewAI handed in (its attributes follow)
_DEFAULTS: dict[str, Any] = {
    "scope": "/",
    "categories": [],
    "metadata": {},
    "importance": 0.5,
    "source": None,
    "private": False,
}
_PAGE = 500


def in_scope(scope: str, prefix: str | None) -> bool:
    if not prefix or prefix == "/":
        return True
    prefix = prefix.rstrip("/")
    return scope == prefix or scope.startswith(prefix + "/")


def _hmem_importance(importance: float) -> int:
    """CrewAI's 0-1 importance on hmem's 1-10 scale (hmem's own scoring reads it); the
    exact value is kept with the record's attributes."""
    return max(1, min(10, round(importance * 10)))


RECORD_IN_TEXT = f"{RECORD}+"  # attributes beyond a source's 200 characters: in the text


def _encode(record: MemoryRecord) -> tuple[str, str]:
    """(the fact's text, its source) for a record: its content, and its CrewAI
    attributes (only those not default) in the source; attributes that take more than
    hmem keeps in a source (200 characters) go into the text with the content, as JSON,
    so they are kept in full (that record's text then also carries them for search)."""
    values = {
        "scope": record.scope,
        "categories": record.categories,
        "metadata": record.metadata,
        "importance": record.importance,
        "source": record.source,
        "private": record.private,
    }
    kept = {k: v for k, v in values.items() if v != _DEFAULTS[k]}
    try:
        source = f"{RECORD} {json.dumps(kept, separators=(',', ':'))}" if kept else RECORD
    except TypeError as exc:
        raise ValueError(f"a CrewAI record's metadata must be JSON values: {exc}") from exc
    if len(source) <= 200:
        return record.content, source
    text = json.dumps({"content": record.content, "attributes": kept}, ensure_ascii=False)
    return text, RECORD_IN_TEXT


def _decode(fact: Fact) -> tuple[str, dict[str, Any]] | None:
    """(content, attributes) of a record CrewAI handed in, else None."""
    if fact.source == RECORD_IN_TEXT:
        given = json.loads(fact.text)
        return given["content"], given["attributes"]
    if fact.source.startswith(RECORD):
        return fact.text, json.loads(fact.source[len(RECORD) :] or "{}")
    return None


class HmemStorage:
    """CrewAI's ``StorageBackend`` over hmem, for one user: each ``MemoryRecord`` one
    fact (its content the fact's text, its id the fact's id, its scope, categories,
    metadata, importance, source and privacy kept with it). An update supersedes the
    record (the old one stays in the history); a delete closes it (a retraction, which
    ``restore`` undoes). ``touch_records`` keeps ``last_accessed`` in this process.

    CrewAI's own vector search (``search`` by an embedding) is not offered:
    ``HmemCrewMemory.recall`` searches hmem by the query's text."""

    def __init__(self, port: Port, user_id: str, loop: Loop) -> None:
        self.port, self.user_id, self.loop = port, user_id, loop
        self._accessed: dict[str, datetime] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> HmemStorage:
        return self  # shared by the copies Crew makes of its agents' memory

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.loop.run(self.port.acall(name, *args, user_id=self.user_id, **kwargs))

    # -- records <-> facts ---------------------------------------------------------------
    def to_record(self, fact: Fact, line: str | None = None) -> MemoryRecord:
        """A fact as CrewAI's record: a record CrewAI stored comes back as it was given;
        a fact hmem learnt otherwise (its extractor, another face) as hmem's dated line."""
        attrs: dict[str, Any] = dict(_DEFAULTS)
        content = fact.text
        given = _decode(fact)
        if given is not None:
            content = given[0]
            attrs.update(given[1])
        else:
            attrs["importance"] = fact.importance / 10
            attrs["source"] = fact.speaker
            attrs["metadata"] = {"valid_from": f"{fact.valid_from:%Y-%m-%d}"}
            content = line or content
        created = fact.known_from.astimezone(UTC).replace(tzinfo=None)
        return MemoryRecord(
            id=fact.id,
            content=content,
            created_at=created,  # CrewAI's records are naive UTC
            last_accessed=self._accessed.get(fact.id, created),
            **attrs,
        )

    def _facts(self) -> list[Fact]:
        facts: list[Fact] = []
        while True:
            page: list[Fact] = self._call("facts", limit=_PAGE, offset=len(facts))
            facts += page
            if len(page) < _PAGE:
                return facts

    def _records(self, scope_prefix: str | None = None) -> list[MemoryRecord]:
        records = [self.to_record(f) for f in self._facts()]
        records = [r for r in records if in_scope(r.scope, scope_prefix)]
        return sorted(records, key=lambda r: r.created_at, reverse=True)

    # -- StorageBackend ------------------------------------------------------------------
    def save(self, records: list[MemoryRecord]) -> None:
        for record in records:
            self.write(record)

    def write(
        self, record: MemoryRecord, *, supersedes: str | None = None, infer: bool | None = None
    ) -> str:
        """Stores one record; returns the id hmem keeps it under (the record's own, or
        the fact it merged with). ``infer``: hmem's plain-text inference (None: its
        default; False beside the extractor, which reads the same words)."""
        text, source = _encode(record)
        result: WriteResult = self._call(
            "remember",
            text,
            infer=infer,
            importance=_hmem_importance(record.importance),
            source=source,
            fact_id=None if supersedes else record.id,
            supersedes=[supersedes] if supersedes else [],
            observed_at=record.created_at.replace(tzinfo=UTC) if supersedes is None else None,
        )
        ids = result.added or result.merged
        return ids[0] if ids else record.id

    def search(self, query_embedding: list[float], **_: Any) -> list[tuple[MemoryRecord, float]]:
        raise NotImplementedError(
            "HmemCrewMemory.recall searches hmem by the query's text, not by an embedding"
        )

    def get_record(self, record_id: str) -> MemoryRecord | None:
        """The record, or the one that replaced it (``update`` supersedes); None when it
        is unknown or forgotten."""
        try:
            chain: FactHistory = self._call("history", record_id)
        except NotFoundError:
            return None
        current = [s.fact for s in chain.successors if s.fact.is_open]
        if chain.fact.is_open:
            return self.to_record(chain.fact)
        return self.to_record(current[-1]) if current else None

    def update(self, record: MemoryRecord) -> None:
        self.write(record, supersedes=record.id)

    def delete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        if record_ids is not None:
            found = [self.get_record(i) for i in record_ids]
            records = [r for r in found if r is not None]
        else:
            records = self._records(scope_prefix)
        if record_ids is not None and scope_prefix:
            records = [r for r in records if in_scope(r.scope, scope_prefix)]
        if categories:
            records = [r for r in records if set(categories) & set(r.categories)]
        if older_than is not None:
            cutoff = (
                older_than.astimezone(UTC).replace(tzinfo=None) if older_than.tzinfo else older_than
            )
            records = [r for r in records if r.created_at < cutoff]
        if metadata_filter:
            records = [
                r
                for r in records
                if all(r.metadata.get(k) == v for k, v in metadata_filter.items())
            ]
        for record in records:
            self._call("close", record.id, reason=SupersedeReason.RETRACTION)
        return len(records)

    def touch_records(self, record_ids: list[str]) -> None:
        now = datetime.now(UTC).replace(tzinfo=None)
        self._accessed.update(dict.fromkeys(record_ids, now))

    def list_records(
        self, scope_prefix: str | None = None, limit: int = 200, offset: int = 0
    ) -> list[MemoryRecord]:
        return self._records(scope_prefix)[offset : offset + limit]

    def get_scope_info(self, scope: str) -> ScopeInfo:
        records = self._records(scope)
        times = [r.created_at for r in records]
        return ScopeInfo(
            path=scope,
            record_count=len(records),
            categories=sorted({c for r in records for c in r.categories}),
            oldest_record=min(times, default=None),
            newest_record=max(times, default=None),
            child_scopes=self.list_scopes(scope),
        )

    def list_scopes(self, parent: str = "/") -> list[str]:
        base = parent.rstrip("/")
        children = set()
        for record in self._records(parent):
            rest = record.scope[len(base) :].strip("/")
            if record.scope != parent and rest:
                children.add(f"{base}/{rest.split('/')[0]}")
        return sorted(children)

    def list_categories(self, scope_prefix: str | None = None) -> dict[str, int]:
        counts: dict[str, int] = {}
        for record in self._records(scope_prefix):
            for category in record.categories:
                counts[category] = counts.get(category, 0) + 1
        return counts

    def count(self, scope_prefix: str | None = None) -> int:
        return len(self._records(scope_prefix))

    def reset(self, scope_prefix: str | None = None) -> None:
        self.delete(scope_prefix=scope_prefix)

    async def asave(self, records: list[MemoryRecord]) -> None:
        await asyncio.to_thread(self.save, records)

    async def asearch(
        self, query_embedding: list[float], **_: Any
    ) -> list[tuple[MemoryRecord, float]]:
        return self.search(query_embedding)

    async def adelete(self, **criteria: Any) -> int:
        return await asyncio.to_thread(functools.partial(self.delete, **criteria))
