"""A LangGraph ``BaseStore`` on hmem: ``graph.compile(store=HmemStore(backend))``.

Nodes reach it as ``runtime.store`` / ``get_store()``, tools through ``InjectedStore()``,
and langmem's manage/search tools work unchanged. It keeps LangGraph's store contract
(it passes LangGraph's own store tests: docs/frameworks.md) and adds hmem's history:

* the user: ``HmemStore(backend, user_id="maya")`` binds the store to one user (every
  namespace then lives inside that user's memory); otherwise the user is the namespace's
  label at ``user_index`` (default 1: ``("memories", "maya")``), or, for a shorter
  namespace, the run's ``config["configurable"]["langgraph_user_id"]``. Never a value a
  model writes: the namespace is the graph author's.
* ``put`` stores the value exactly as given (one fact per key; ``source`` records the
  namespace, key, first write, index and TTL). A new value for an existing key
  supersedes the old one (history kept, reason ``contradiction``); ``delete`` closes it
  (a retraction: restorable, never erased). A put never merges with another key's equal
  value, and never infers anything (no model, no closing of other keys).
* values: ``{"content": str}`` or ``{"text": str}`` (langmem's shape) are stored as that
  text, with optional ``valid_from`` / ``valid_to`` / ``observed_at``; any other dict is
  stored as its JSON. Every value comes back as it was put.
* ``search``: namespace prefix (tuple or list), ``filter`` on the values with
  ``$eq $ne $gt $gte $lt $lte`` and dotted keys as InMemoryStore / SqliteStore do (keys
  of letters, digits, ``_ . -``, as the SQL stores take them), its
  ``limit`` / ``offset``. With an ``index`` config (``embed``, ``dims``, ``fields``) a
  query ranks by LangGraph's notion: the cosine of your embeddings of the indexed fields
  (``index=False`` or a field list per put), max over the fields, unindexed items last
  without a score. Without one, a query ranks by hmem's hybrid search (its own
  embedder) and the other matching items follow without a score. ``filter`` also takes
  ``as_of`` / ``as_of_event`` (ISO 8601 or datetimes: what was believed / true then) and
  ``include_replaced`` (replaced versions too).
* TTL (``supports_ttl``): ``ttl={"default_ttl": minutes, "refresh_on_read": True,
  "sweep_interval_minutes": m}`` or ``put(..., ttl=minutes)``. An expired item is not
  returned; ``sweep_ttl()`` (or the sweeper thread, ``start_ttl_sweeper()``) closes the
  expired items (restorable). A read restarts the clock when the config says
  ``refresh_on_read`` (as SqliteStore); refreshes are kept in the process; after a
  restart an item's clock counts from the later of its last write and the store's start,
  so an item never expires early.
* vectors of an ``index`` config are computed with your ``embed`` at put time and kept in
  the process (``max_vectors``, least recently used first); an item whose vectors are not
  there (after a restart) is embedded again when a search first scores it.

``AsyncHmemStore`` is the same store for an async backend (``AsyncMemory`` /
``AsyncClient``), shaped like LangGraph's async stores: ``await sweep_ttl()`` and the
sweeper task, and the sync methods work from other threads but refuse to block the
event loop that created it (``asyncio.InvalidStateError``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from hmem.errors import ConflictError, NotFoundError, PolicyRefusal, ValidationError
from hmem.faces.adapters._core import Backend, Port, check_user, format_fact, missing, parse_when
from hmem.models import Fact, FactHistory, SupersedeReason, WriteResult
from hmem.recall.models import SearchResult

try:
    from langchain_core.embeddings import Embeddings
    from langgraph.config import get_config
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        Item,
        ListNamespacesOp,
        NotProvided,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        ensure_embeddings,
        tokenize_path,
        validate_op_namespace,
    )

    # InMemoryStore's own filter and namespace matching, so both stores agree
    from langgraph.store.memory import _does_match
except ImportError as exc:  # the framework is the langgraph extra
    raise missing("langgraph", "langgraph") from exc
from hmem.faces.adapters._langgraph_items import (
    _FILTER_KEY,
    _ID_SPACE,
    HmemSearchItem,
    StoreRefusal,
    _cosine,
    _encode,
    _Entry,
    _entry,
    _matches,
    _run,
)
from hmem.faces.adapters._langgraph_ttl import AsyncSweeper, TTLClocks
from hmem.faces.adapters._langgraph_vectors import IndexVectors

__all__ = ["AsyncHmemStore", "HmemSearchItem", "HmemStore", "StoreRefusal"]


class HmemStore(TTLClocks, IndexVectors, BaseStore):
    """hmem as LangGraph's long-term store (see the module's docstring)."""

    __slots__ = (
        "_embed",
        "_fields",
        "_lock",
        "_loop",
        "_port",
        "_refreshed",
        "_started",
        "_sweeper",
        "_sweeper_stop",
        "_user_id",
        "_user_index",
        "_users",
        "_vectors",
        "embeddings",
        "index_config",
        "max_vectors",
        "ttl_config",
    )
    supports_ttl = True

    def __init__(
        self,
        backend: Backend,
        *,
        user_id: str | None = None,
        user_index: int = 1,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        max_vectors: int = 100_000,
    ) -> None:
        self._port = Port(backend)
        self._user_id = check_user(user_id) if user_id is not None else None
        self._user_index = user_index
        self.index_config: IndexConfig | None = None
        self._embed: Embeddings | None = None
        self._fields: list[str] = ["$"]
        if index:
            self.index_config = index.copy()
            self._embed = ensure_embeddings(index.get("embed"))
            # IndexConfig's ``fields``; SqliteStore's and PostgresStore's ``text_fields``
            named: Any = index.get("fields") or index.get("text_fields")  # type: ignore[typeddict-item]
            self._fields = [str(path) for path in named] if named else ["$"]
            for path in self._fields:
                tokenize_path(path)  # a malformed path fails here, not at the first put
        self.embeddings = self._embed  # the name InMemoryStore and SqliteStore give it
        self.ttl_config = ttl
        self.max_vectors = max_vectors
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._refreshed: dict[tuple[str, tuple[str, ...], str], datetime] = {}
        self._users: set[str] = set()
        self._started = datetime.now(UTC)
        self._lock = threading.Lock()
        self._sweeper: Any = None
        self._sweeper_stop = threading.Event()
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None

    # -- the user -------------------------------------------------------------------------
    def user_of(self, namespace: Sequence[str]) -> str:
        """The hmem user a namespace belongs to (see the module's docstring)."""
        if self._user_id is not None:
            return self._user_id
        if len(namespace) > self._user_index and namespace[self._user_index] != "*":
            return check_user(namespace[self._user_index])
        try:
            configured = get_config().get("configurable", {}).get("langgraph_user_id")
        except RuntimeError:  # outside a run
            configured = None
        if configured is None:
            raise ValidationError(
                f"namespace {tuple(namespace)!r} names no user at position {self._user_index} "
                "and the run has no config['configurable']['langgraph_user_id']"
            )
        return check_user(configured)

    @staticmethod
    def root_id(namespace: Sequence[str], key: str) -> str:
        """The id of the first fact of a key (hmem's caller-chosen id)."""
        return "lg-" + uuid.uuid5(_ID_SPACE, json.dumps([list(namespace), key])).hex

    # -- BaseStore ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:  # refused before anything is queued or written
            validate_op_namespace(op)
        if not self._port.is_async:
            return _run(self.abatch(ops))
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        loop = self._loop
        if loop is None or loop.is_closed():
            self._port.call("search")  # raises: an async backend serves only abatch
            raise AssertionError("unreachable")
        if running is loop:
            raise asyncio.InvalidStateError(
                "a synchronous call to the store from the event loop that runs it would "
                "block that loop: use the async methods (aget, aput, asearch, ...) there, "
                "or call the sync ones from another thread"
            )
        return asyncio.run_coroutine_threadsafe(self.abatch(ops), loop).result()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:  # the whole batch is refused before anything is written
            validate_op_namespace(op)
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(await self._get(op))
            elif isinstance(op, PutOp):
                await self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(await self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._list_namespaces(op))
            else:
                raise ValidationError(f"unknown store operation {type(op).__name__}")
        return results

    # -- reading --------------------------------------------------------------------------
    async def _chain(self, user: str, namespace: tuple[str, ...], key: str) -> FactHistory | None:
        try:
            chain: FactHistory = await self._port.acall(
                "history", self.root_id(namespace, key), user_id=user
            )
        except NotFoundError:
            return None
        return chain

    @staticmethod
    def _head(chain: FactHistory) -> Fact:
        """The key's newest version: the open one, else the last one learned (a chain
        lists successors by world time, and a put may date its value earlier)."""
        facts = [chain.fact, *(s.fact for s in chain.successors)]
        open_ = [f for f in facts if f.known_to is None]
        return max(open_ or facts, key=lambda f: (f.known_from, f.id))

    async def _get(self, op: GetOp) -> Item | None:
        user = self.user_of(op.namespace)
        chain = await self._chain(user, tuple(op.namespace), op.key)
        if chain is None:
            return None
        entry = _entry(self._head(chain))
        if entry is None or entry.fact.known_to is not None:
            return None
        if self._expired(user, entry, datetime.now(UTC)):
            return None
        self._refresh(user, [entry], op.refresh_ttl)
        return entry.item()

    # -- writing --------------------------------------------------------------------------
    def _ttl_of(self, op: PutOp) -> float | None:
        ttl: Any = op.ttl  # NOT_PROVIDED when a PutOp is built by hand without one
        if isinstance(ttl, NotProvided):
            default = (self.ttl_config or {}).get("default_ttl")
            return None if default is None else float(default)
        return None if ttl is None else float(ttl)

    async def _put(self, op: PutOp) -> None:
        """One put; a concurrent put of the same key (two writers saw the same head)
        makes hmem refuse the second write, which then reads the key again."""
        for attempt in range(4):
            try:
                return await self._put_once(op)
            except ConflictError:
                if attempt == 3:
                    raise

    async def _put_once(self, op: PutOp) -> None:
        namespace = tuple(op.namespace)
        user = self.user_of(namespace)
        self._users.add(user)
        slot = (user, namespace, op.key)
        chain = await self._chain(user, namespace, op.key)
        head = self._head(chain) if chain else None
        if op.value is None:  # a delete: closed, restorable
            self._refreshed.pop(slot, None)
            if head is not None and head.known_to is None:
                await self._port.acall("close", head.id, user_id=user)
            return
        value = dict(op.value)
        index: bool | list[str] | None = None if op.index is None else op.index
        if isinstance(index, list | tuple):
            index = list(index)
            for path in index:
                tokenize_path(path)
        ttl = self._ttl_of(op)
        now = datetime.now(UTC)
        old = _entry(head) if head is not None and head.known_to is None else None
        created = old.meta.created if old is not None else now
        if head is not None and head.known_to is not None:  # deleted before: go on from it
            # believed again from this put's own moment, so its supersession may follow it
            head = await self._port.acall("restore", head.id, user_id=user, observed_at=now)
            assert head is not None
        await self._embed_value(value, index)
        self._refreshed.pop(slot, None)
        for form in (0, 1, 2):
            text, source, fields = _encode(
                namespace, op.key, value, created=created, index=index, ttl=ttl, form=form
            )
            if head is not None and head.text == text and head.source == source:
                return  # the same value again: nothing new (its TTL clock restarts)
            fields.setdefault("observed_at", now)
            if head is None:
                result = await self._remember(
                    user, text, source, fields, fact_id=self.root_id(namespace, op.key)
                )
            else:
                when = fields.get("valid_from") or fields["observed_at"]
                reason = (
                    SupersedeReason.USER_EDIT  # news of an earlier time: the old was never so
                    if when < head.valid_from
                    else SupersedeReason.CONTRADICTION
                )
                result = await self._remember(
                    user, text, source, fields, supersedes=[head.id], reason=reason
                )
            if result.added:
                return
            # another open fact of this user holds the same text (another key's equal
            # value): hmem skipped it as a duplicate; the JSON form names this key
        raise ValidationError(f"hmem did not store the value of key {op.key!r}")

    async def _remember(
        self, user: str, text: str, source: str, fields: dict[str, Any], **more: Any
    ) -> WriteResult:
        try:
            result: WriteResult = await self._port.acall(
                "remember", text, user_id=user, source=source, infer=False, **fields, **more
            )
        except PolicyRefusal as exc:
            raise StoreRefusal(exc.kind, str(exc)) from None
        return result

    # -- the index ------------------------------------------------------------------------
    # -- search ---------------------------------------------------------------------------
    async def _entries(
        self, user: str, prefix: tuple[str, ...], filters: dict[str, Any], options: dict[str, Any]
    ) -> list[_Entry]:
        """The user's items under the prefix that match the filter, newest first."""
        now = datetime.now(UTC)
        out: list[_Entry] = []
        for fact in await self._facts(user, **options):
            entry = _entry(fact)
            if entry is None or entry.meta.namespace[: len(prefix)] != prefix:
                continue
            if self._expired(user, entry, now):
                continue
            if all(_matches(entry.value, k, v) for k, v in filters.items()):
                out.append(entry)
        out.sort(key=lambda e: (e.fact.known_from, e.fact.id), reverse=True)
        return out

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)  # search(["a"]) hands in a list
        user = self.user_of(prefix)
        rest = dict(op.filter or {})
        for name in rest:
            if not isinstance(name, str) or not _FILTER_KEY.match(name):
                raise ValueError(
                    f"Invalid filter key: {name!r}. Filter keys must contain only "
                    "alphanumeric characters, underscores, dots, and hyphens."
                )
        when = {k: parse_when(k, rest.pop(k, None)) for k in ("as_of", "as_of_event")}
        replaced = bool(rest.pop("include_replaced", False))
        options: dict[str, Any] = {k: v for k, v in when.items() if v is not None}
        if replaced:
            options["include_closed"] = True
        entries = await self._entries(user, prefix, rest, options)
        if op.query and self._embed is not None:
            ranked = await self._rank_by_index(op.query, entries)
        elif op.query:
            ranked = await self._rank_by_hmem(user, op.query, entries, when)
        else:
            ranked = [(e, None) for e in entries]
        page = ranked[op.offset : op.offset + op.limit]
        self._refresh(user, [e for e, _ in page], op.refresh_ttl)
        return [e.item(score) for e, score in page]

    async def _rank_by_index(
        self, query: str, entries: list[_Entry]
    ) -> list[tuple[_Entry, float | None]]:
        """LangGraph's ranking: cosine of the query and each indexed field, max per item;
        the items without a vector (``index=False``) after, without a score."""
        assert self._embed is not None
        texts = {id(e): self._texts(e.value, e.meta.index) for e in entries}
        vectors = await self._vectors_of([t for ts in texts.values() for t in ts])
        wanted = await self._embed.aembed_query(query)
        scored: list[tuple[_Entry, float | None]] = []
        unscored: list[tuple[_Entry, float | None]] = []
        for entry in entries:
            mine = texts[id(entry)]
            if mine:
                scored.append((entry, max(_cosine(wanted, vectors[t]) for t in mine)))
            else:
                unscored.append((entry, None))
        scored.sort(key=lambda pair: pair[1] or 0.0, reverse=True)
        return scored + unscored

    async def _rank_by_hmem(
        self, user: str, query: str, entries: list[_Entry], when: dict[str, Any]
    ) -> list[tuple[_Entry, float | None]]:
        """hmem's hybrid search first (its scores), then the other matching items."""
        found: SearchResult = await self._port.acall(
            "search", query, user_id=user, k=min(200, max(30, len(entries))), **when
        )
        by_id = {e.fact.id: e for e in entries}
        ranked: list[tuple[_Entry, float | None]] = []
        for hit in found.hits:
            for fact in [hit.fact, *(s.fact for s in hit.predecessors)]:
                entry = by_id.pop(fact.id, None)
                if entry is not None:
                    ranked.append((entry, hit.score if fact is hit.fact else None))
        return ranked + [(e, None) for e in entries if e.fact.id in by_id]

    async def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix = next((c.path for c in op.match_conditions or () if c.match_type == "prefix"), ())
        user = self.user_of(tuple(prefix))
        found: set[tuple[str, ...]] = set()
        for entry in await self._entries(user, (), {}, {}):
            namespace = entry.meta.namespace
            if all(_does_match(c, namespace) for c in op.match_conditions or ()):
                found.add(namespace[: op.max_depth] if op.max_depth else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

    def setup(self) -> None:
        """Nothing to set up: hmem's schema is ``Memory.init_schema`` / the server's (the
        name SqliteStore and PostgresStore have)."""

    # -- for prompts ----------------------------------------------------------------------
    async def acontext(self, namespace: tuple[str, ...], query: str, *, k: int = 10) -> str:
        """hmem's dated memory block for ``query`` (current and replaced facts with their
        dates), for a model's input; the namespace only picks the user."""
        return await self._port.context(self.user_of(namespace), query, k=k)

    def context(self, namespace: tuple[str, ...], query: str, *, k: int = 10) -> str:
        if self._port.is_async:
            self._port.call("search")  # raises: an AsyncClient serves only acontext
        return _run(self.acontext(namespace, query, k=k))

    @staticmethod
    def describe(item: SearchItem) -> str:
        """One dated line for an item (its hmem fact when it has one)."""
        if isinstance(item, HmemSearchItem):
            return format_fact(item.fact)
        return json.dumps(item.value)


class AsyncHmemStore(AsyncSweeper, HmemStore):
    """``HmemStore`` for an async backend, shaped like LangGraph's async stores: make it
    inside the event loop that will run it; ``await sweep_ttl()``,
    ``await start_ttl_sweeper()`` (a task), ``await stop_ttl_sweeper()``."""

    __slots__ = ()

    async def setup(self) -> None:  # type: ignore[override]
        """Nothing to set up (see ``HmemStore.setup``)."""
