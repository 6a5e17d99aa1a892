"""LangGraph items as hmem facts: how a put's value, key and namespace are written into a
fact and read back exactly as given, and the helpers of the store's search (filters,
cosine). The store itself is ``hmem.faces.adapters.langgraph.HmemStore``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import math
import re
import uuid
from collections.abc import Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from hmem.errors import PolicyRefusal
from hmem.faces.adapters._core import missing, parse_when
from hmem.models import Fact

try:
    from langgraph.store.base import SearchItem

    # InMemoryStore's own filter matching, so both stores agree
    from langgraph.store.memory import _compare_values
except ImportError as exc:  # the framework is the langgraph extra
    raise missing("langgraph", "langgraph") from exc

T = TypeVar("T")
_ID_SPACE = uuid.UUID("6f1c54b2-8d0e-4c55-9a51-5b0d3f8f2a11")
_SOURCE = "langgraph"
_TEXT_KEYS = ("content", "text")
_DATE_KEYS = ("valid_from", "valid_to", "observed_at")
_PAGE = 1000  # the API's page limit for facts()
_MISSING = object()
_LONG = "json+"  # a source too long for hmem's 200 characters: all of it in the text
# the filter keys SqliteStore and PostgresStore take (they build SQL from them; hmem
# filters in Python, and refuses the same keys so that code moves between the stores)
_FILTER_KEY = re.compile(r"^[a-zA-Z0-9_.-]+$")


class StoreRefusal(PolicyRefusal, ValueError):
    """hmem's write policy refused a value (a credential, ...): a ``ValueError`` as
    LangGraph's stores raise for input they refuse, and hmem's ``PolicyRefusal``."""


class HmemSearchItem(SearchItem):
    """A ``SearchItem`` that also carries the hmem fact (dates, id, replaced or not)."""

    __slots__ = ("fact",)

    def __init__(self, fact: Fact, *, score: float | None, **item: Any) -> None:
        super().__init__(score=score, **item)
        self.fact = fact

    @property
    def replaced(self) -> bool:
        return self.fact.known_to is not None


class _Meta:
    """What a fact of this store says about its item (from its ``source``)."""

    __slots__ = ("created", "index", "key", "namespace", "shape", "ttl")

    def __init__(self, fact: Fact) -> None:
        parts = json.loads(fact.source[len(_SOURCE) + 1 :])
        if parts[2] == _LONG:  # the namespace, key and the rest are in the text
            namespace, key, _, rest = json.loads(fact.text)[:4]
            parts = [namespace, key, _LONG, *rest]
        self.namespace: tuple[str, ...] = tuple(parts[0])
        self.key: str = parts[1]
        self.shape: str = parts[2]
        # written before created/index/ttl were recorded: created is the fact's own time
        self.created = datetime.fromisoformat(parts[3]) if len(parts) > 3 else fact.known_from
        self.index: bool | list[str] | None = parts[4] if len(parts) > 4 else None
        self.ttl: float | None = parts[5] if len(parts) > 5 else None


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """A coroutine from sync code; in a thread of its own when this one runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _encode(
    namespace: tuple[str, ...],
    key: str,
    value: dict[str, Any],
    *,
    created: datetime,
    index: bool | list[str] | None,
    ttl: float | None,
    form: int = 0,
) -> tuple[str, str, dict[str, Any]]:
    """(text, source, hmem fields) of a value. A text value is hmem-native (``form`` 0);
    any other dict, and a text value whose text another open fact of the user already
    holds (``form`` 1), is its JSON with the namespace and key in it, so that equal values
    under two keys are two facts. ``form`` 2 adds the write's time: the same value again
    under the same key with another TTL or index (hmem keeps one open fact per text)."""
    keys = list(value)
    text_key = next((k for k in _TEXT_KEYS if isinstance(value.get(k), str)), None)
    plain = text_key and set(keys) <= {text_key, *_DATE_KEYS} and value[text_key].strip()
    if plain and not form:
        assert text_key is not None
        fields = {k: parse_when(k, value[k]) for k in _DATE_KEYS if k in value}
        shape = ",".join(keys)
        text = value[text_key]
    else:
        fields, shape = {}, "json"
        tail = [datetime.now(UTC).isoformat()] if form == 2 else []
        text = json.dumps([list(namespace), key, value, *tail], ensure_ascii=False)
    rest = [created.isoformat(), index, ttl]
    source = f"{_SOURCE}:" + json.dumps([list(namespace), key, shape, *rest], ensure_ascii=False)
    if len(source) > 200:  # hmem's limit for a source: the text holds it all
        fields, source = {}, f"{_SOURCE}:" + json.dumps([None, None, _LONG])
        tail = [datetime.now(UTC).isoformat()] if form == 2 else []
        text = json.dumps([list(namespace), key, value, rest, *tail], ensure_ascii=False)
    return text, source, fields


def _decode(fact: Fact) -> tuple[_Meta, dict[str, Any]] | None:
    """(what the source says, the value) of a fact this store wrote, else None."""
    if not fact.source.startswith(f"{_SOURCE}:"):
        return None
    meta = _Meta(fact)
    if meta.shape in ("json", _LONG):
        value: dict[str, Any] = json.loads(fact.text)[2]
    else:
        value = {}
        for name in meta.shape.split(","):
            if name in _TEXT_KEYS:
                value[name] = fact.text
            elif name == "observed_at":
                value[name] = fact.known_from.isoformat()
            else:
                when = getattr(fact, name)
                value[name] = when.isoformat() if when else None
    return meta, value


def _matches(value: dict[str, Any], key: str, wanted: Any) -> bool:
    """A filter key on a value, a dotted key reaching into nested dicts (as the SQL
    stores do); a value without the key does not match (InMemoryStore would raise)."""
    found: Any = value.get(key, _MISSING)
    if found is _MISSING and "." in key:
        found = value
        for part in key.split("."):
            found = found.get(part, _MISSING) if isinstance(found, dict) else _MISSING
    return found is not _MISSING and _compare_values(found, wanted)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class _Entry:
    """One item as the store sees it: its head fact, decoded."""

    __slots__ = ("fact", "meta", "value")

    def __init__(self, fact: Fact, meta: _Meta, value: dict[str, Any]) -> None:
        self.fact, self.meta, self.value = fact, meta, value

    def item(self, score: float | None = None) -> HmemSearchItem:
        return HmemSearchItem(
            self.fact,
            score=score,
            namespace=self.meta.namespace,
            key=self.meta.key,
            value=self.value,
            created_at=self.meta.created,
            updated_at=self.fact.known_from,
        )


def _entry(fact: Fact) -> _Entry | None:
    decoded = _decode(fact)
    return None if decoded is None else _Entry(fact, *decoded)
