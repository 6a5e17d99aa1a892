"""A LangGraph ``BaseStore`` on hmem: ``graph.compile(store=HmemStore(backend))``.

Nodes reach it as ``runtime.store`` / ``get_store()``, tools through ``InjectedStore()``,
and langmem's manage/search tools work unchanged. What each operation means here:

* the user: ``HmemStore(backend, user_id="maya")`` binds the store to one user (every
  namespace then lives inside that user's memory); otherwise the user is the namespace's
  label at ``user_index`` (default 1: ``("memories", "maya")``), or, for a shorter
  namespace, the run's ``config["configurable"]["langgraph_user_id"]``. Never a value a
  model writes: the namespace is the graph author's.
* ``put`` of a new key remembers a fact (``source`` records the namespace and key); a new
  value for an existing key supersedes the old one (history kept, reason
  ``contradiction``); ``delete`` closes it (a retraction: restorable, never erased).
* ``get`` reads the newest version of the key; ``search`` is hmem's hybrid search (or the
  user's facts without a query), limited to the namespace prefix; ``filter`` accepts
  ``as_of`` / ``as_of_event`` (ISO 8601 or datetimes: what was believed / true then) and
  ``include_replaced`` (replaced versions too), the rest is matched on the values with
  ``$eq $ne $gt $gte $lt $lte`` as ``InMemoryStore`` does.
* values: ``{"content": str}`` or ``{"text": str}`` (langmem's shape) are stored as that
  text, with optional ``valid_from`` / ``valid_to`` / ``observed_at``; any other dict is
  stored as its JSON. Every value comes back as it was put.

Embeddings are hmem's own (server side), so an ``index`` config is accepted and
ignored; TTLs are not supported (hmem closes, it does not expire).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import uuid
from collections.abc import Coroutine, Iterable
from datetime import datetime
from typing import Any, TypeVar

from hmem.errors import NotFoundError, ValidationError
from hmem.faces.adapters._core import Backend, Port, check_user, format_fact, missing, parse_when
from hmem.models import Fact, FactHistory, WriteResult
from hmem.recall.models import SearchResult

try:
    from langgraph.config import get_config
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        validate_op_namespace,
    )

    # InMemoryStore's own filter and namespace matching, so both stores agree
    from langgraph.store.memory import _compare_values, _does_match
except ImportError as exc:  # the framework is the langgraph extra
    raise missing("langgraph", "langgraph") from exc

__all__ = ["HmemSearchItem", "HmemStore"]

T = TypeVar("T")
_ID_SPACE = uuid.UUID("6f1c54b2-8d0e-4c55-9a51-5b0d3f8f2a11")
_SOURCE = "langgraph"
_TEXT_KEYS = ("content", "text")
_DATE_KEYS = ("valid_from", "valid_to", "observed_at")
_FILTER_KEYS = ("as_of", "as_of_event", "include_replaced")
_ALL = 1000  # the API's page limit for facts()


class HmemSearchItem(SearchItem):
    """A ``SearchItem`` that also carries the hmem fact (dates, id, replaced or not)."""

    __slots__ = ("fact",)

    def __init__(self, fact: Fact, *, score: float | None, **item: Any) -> None:
        super().__init__(score=score, **item)
        self.fact = fact

    @property
    def replaced(self) -> bool:
        return self.fact.known_to is not None


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """A coroutine from sync code; in a thread of its own when this one runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _encode(
    namespace: tuple[str, ...], key: str, value: dict[str, Any]
) -> tuple[str, str, dict[str, Any]]:
    """(text, source, hmem fields) of a value. A text value is hmem-native; any other
    dict is its JSON, with the namespace and key in it so that equal values under two
    keys are not one fact to hmem's duplicate check."""
    keys = sorted(value)
    text_key = next((k for k in _TEXT_KEYS if isinstance(value.get(k), str)), None)
    if text_key and set(keys) <= {text_key, *_DATE_KEYS} and value[text_key].strip():
        fields = {k: parse_when(k, value[k]) for k in _DATE_KEYS if k in value}
        shape = ",".join(keys)
        text = value[text_key]
    else:
        fields, shape = {}, "json"
        text = json.dumps([list(namespace), key, value], sort_keys=True, ensure_ascii=False)
    source = f"{_SOURCE}:" + json.dumps([list(namespace), key, shape], ensure_ascii=False)
    if len(source) > 200:
        raise ValidationError("hmem's store keeps namespace + key in 200 characters; use shorter")
    return text, source, fields


def _decode(fact: Fact) -> tuple[tuple[str, ...], str, dict[str, Any]] | None:
    """(namespace, key, value) of a fact this store wrote, else None."""
    if not fact.source.startswith(f"{_SOURCE}:"):
        return None
    namespace, key, shape = json.loads(fact.source[len(_SOURCE) + 1 :])
    if shape == "json":
        value: dict[str, Any] = json.loads(fact.text)[2]
    else:
        value = {}
        for name in shape.split(","):
            if name in _TEXT_KEYS:
                value[name] = fact.text
            elif name == "observed_at":
                value[name] = fact.known_from.isoformat()
            else:
                when = getattr(fact, name)
                value[name] = when.isoformat() if when else None
    return tuple(namespace), key, value


_MISSING = object()


def _matches(value: dict[str, Any], key: str, wanted: Any) -> bool:
    """A filter key on a value, a dotted key reaching into nested dicts (as the SQL
    stores do); a value without the key does not match (InMemoryStore would raise)."""
    found: Any = value.get(key, _MISSING)
    if found is _MISSING and "." in key:
        found = value
        for part in key.split("."):
            found = found.get(part, _MISSING) if isinstance(found, dict) else _MISSING
    return found is not _MISSING and _compare_values(found, wanted)


def _item(fact: Fact, created: datetime, score: float | None = None) -> HmemSearchItem | None:
    decoded = _decode(fact)
    if decoded is None:
        return None
    namespace, key, value = decoded
    return HmemSearchItem(
        fact,
        score=score,
        namespace=namespace,
        key=key,
        value=value,
        created_at=created,
        updated_at=fact.known_from,
    )


class HmemStore(BaseStore):
    """hmem as LangGraph's long-term store (see the module's docstring)."""

    __slots__ = ("_port", "_user_id", "_user_index")
    supports_ttl = False

    def __init__(
        self,
        backend: Backend,
        *,
        user_id: str | None = None,
        user_index: int = 1,
        index: IndexConfig | None = None,  # hmem embeds server-side
    ) -> None:
        self._port = Port(backend)
        self._user_id = check_user(user_id) if user_id is not None else None
        self._user_index = user_index

    # -- the user -------------------------------------------------------------------------
    def user_of(self, namespace: tuple[str, ...]) -> str:
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
                f"namespace {namespace!r} names no user at position {self._user_index} and "
                "the run has no config['configurable']['langgraph_user_id']"
            )
        return check_user(configured)

    @staticmethod
    def root_id(namespace: tuple[str, ...], key: str) -> str:
        """The id of the first fact of a key (hmem's caller-chosen id)."""
        return "lg-" + uuid.uuid5(_ID_SPACE, json.dumps([list(namespace), key])).hex

    # -- BaseStore ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        if self._port.is_async:
            self._port.call("search")  # raises: an AsyncClient serves only abatch
        return _run(self.abatch(ops))

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

    # -- operations -----------------------------------------------------------------------
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
        return chain.successors[-1].fact if chain.successors else chain.fact

    async def _get(self, op: GetOp) -> Item | None:
        user = self.user_of(op.namespace)
        chain = await self._chain(user, op.namespace, op.key)
        if chain is None:
            return None
        head = self._head(chain)
        return None if head.known_to is not None else _item(head, chain.fact.known_from)

    async def _put(self, op: PutOp) -> None:
        user = self.user_of(op.namespace)
        chain = await self._chain(user, op.namespace, op.key)
        head = self._head(chain) if chain else None
        if op.value is None:  # a delete: closed, restorable
            if head is not None and head.known_to is None:
                await self._port.acall("close", head.id, user_id=user)
            return
        text, source, fields = _encode(op.namespace, op.key, dict(op.value))
        if head is None:
            await self._remember(
                user, text, source, fields, fact_id=self.root_id(op.namespace, op.key)
            )
            return
        if head.known_to is not None:  # deleted before: the chain goes on from it
            head = await self._port.acall("restore", head.id, user_id=user)
            assert head is not None
        if head.text == text and head.source == source:
            return
        await self._remember(user, text, source, fields, supersedes=[head.id])

    async def _remember(
        self, user: str, text: str, source: str, fields: dict[str, Any], **more: Any
    ) -> WriteResult:
        result: WriteResult = await self._port.acall(
            "remember", text, user_id=user, source=source, **fields, **more
        )
        return result

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        user = self.user_of(op.namespace_prefix)
        rest = dict(op.filter or {})
        when = {k: parse_when(k, rest.pop(k, None)) for k in ("as_of", "as_of_event")}
        replaced = bool(rest.pop("include_replaced", False)) or any(when.values())
        wanted = op.offset + op.limit
        scored: list[tuple[Fact, float | None]]
        if op.query:
            found: SearchResult = await self._port.acall(
                "search", op.query, user_id=user, k=min(200, max(30, 3 * wanted)), **when
            )
            scored = [(h.fact, h.score) for h in found.hits if replaced or h.current]
            if replaced:  # and the versions each hit replaced (hmem's one-hop history)
                seen = {f.id for f, _ in scored}
                for hit in found.hits:
                    older = [s.fact for s in hit.predecessors if s.fact.id not in seen]
                    seen.update(f.id for f in older)
                    scored += [(f, None) for f in older]
        else:
            facts: list[Fact] = await self._port.acall("facts", user_id=user, limit=_ALL, **when)
            facts.sort(key=lambda f: f.known_from, reverse=True)
            scored = [(f, None) for f in facts]
        items: list[SearchItem] = []
        prefix = op.namespace_prefix
        for fact, score in scored:
            item = _item(fact, fact.known_from, score)
            if item is None or item.namespace[: len(prefix)] != prefix:
                continue
            if all(_matches(item.value, k, v) for k, v in rest.items()):
                items.append(item)
        return items[op.offset : wanted]

    async def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix = next((c.path for c in op.match_conditions or () if c.match_type == "prefix"), ())
        user = self.user_of(tuple(prefix))
        facts: list[Fact] = await self._port.acall("facts", user_id=user, limit=_ALL)
        found: set[tuple[str, ...]] = set()
        for fact in facts:
            decoded = _decode(fact)
            if decoded is None:
                continue
            namespace = decoded[0]
            if all(_does_match(c, namespace) for c in op.match_conditions or ()):
                found.add(namespace[: op.max_depth] if op.max_depth else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

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
