"""AutoGen (AgentChat 0.7): ``HmemMemory``, an ``autogen_core.memory.Memory`` component.

    from autogen_agentchat.agents import AssistantAgent
    from hmem.faces.adapters.autogen import HmemMemory

    memory = HmemMemory(hmem.AsyncClient(url, api_key=key), user_id="maya")
    agent = AssistantAgent("assistant", model_client=..., memory=[memory])

| AutoGen                        | hmem                                                      |
|--------------------------------|-----------------------------------------------------------|
| ``add(content)``               | ``remember`` verbatim: text and markdown as given, JSON   |
|                                | as its JSON, bytes and images as base64; the mime type    |
|                                | and ``metadata`` kept with it, and all come back as given |
| ``query(q, k=, top_k=,``       | ``search``, cut to the memory's relevance: the ``k``      |
| ``score_threshold=,``          | closest by cosine similarity (``score``; with no          |
| ``distance_threshold=,``       | embedder the lexical score), at least ``score_threshold`` |
| ``sequential=)``               | (or at most ``distance_threshold`` = 1 - similarity);     |
|                                | ``sequential``: the last ``k`` added, in order            |
| ``update_context(ctx)``        | ``query`` with the last user message -> one SystemMessage |
|                                | (the one added the turn before is removed first); with    |
|                                | ``learn`` the user's new messages are remembered too      |
| ``clear()``                    | ``erase_user``: this user's whole memory in hmem, erased  |
|                                | and audited (as the API's ``DELETE /v1/users/{user}``)    |
| ``close()``                    | closes the backend this memory built (``api_url`` or      |
|                                | embedded from ``HMEM_*``); one handed in stays open       |

Each result's ``metadata`` is the one given, plus (``annotate=True``, as
``ChromaDBVectorMemory`` does) ``score``, ``id`` (hmem's fact id) and ``valid_from``;
``annotate=False`` returns exactly the metadata given (as ``RedisMemory``). The envelope
(mime type and metadata) is kept in the fact's ``source`` when it fits hmem's 200
characters, else the metadata goes, as JSON, into the fact's text beside the content
(kept in full; that item's search text then carries it too). A secret
(hmem's write policy) is refused with ``ValueError`` too. The user is ``user_id``, fixed
at construction (and in the component config).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from typing import Any, Self

from pydantic import BaseModel

from hmem.errors import PolicyRefusal
from hmem.faces.adapters._core import Backend, Port, check_user, missing
from hmem.faces.adapters._turns import Turn, TurnWriter, hit_line
from hmem.models import Fact
from hmem.recall.models import Hit, SearchResult
from hmem.recall.query import lexical_words

try:
    from autogen_core import CancellationToken, Component, Image
    from autogen_core.memory import (
        Memory,
        MemoryContent,
        MemoryMimeType,
        MemoryQueryResult,
        UpdateContextResult,
    )
    from autogen_core.model_context import ChatCompletionContext
    from autogen_core.models import SystemMessage, UserMessage
except ImportError as exc:  # the framework is the autogen extra
    raise missing("autogen-agentchat", "autogen") from exc

__all__ = ["HmemMemory", "HmemMemoryConfig"]

SOURCE = "autogen"
# an item add()-ed: its fact's source is this prefix and the envelope's JSON
ITEM_SOURCE = f"{SOURCE}:item:"
# marks the SystemMessage this memory added, so that the next turn replaces it
HEADER = "Memories about the user from hmem:"
_MAX_SOURCE = 200


class HmemMemoryConfig(BaseModel):
    """What ``dump_component`` keeps: the user, where hmem is (``api_url`` with the key
    in the ``api_key_env`` variable, or embedded from ``HMEM_*`` when None), and how
    ``query`` cuts (``k``, ``score_threshold``, ``sequential``)."""

    user_id: str
    api_url: str | None = None
    api_key_env: str = "HMEM_API_KEY"
    k: int = 10
    score_threshold: float | None = 0.3
    sequential: bool = False
    annotate: bool = True
    learn: bool = True
    session_id: str | None = None


class HmemMemory(Memory, Component[HmemMemoryConfig]):
    """AutoGen memory backed by hmem, embedded or over the API."""

    component_type = "memory"
    component_config_schema = HmemMemoryConfig
    component_provider_override = "hmem.faces.adapters.autogen.HmemMemory"

    def __init__(
        self,
        backend: Backend | None = None,
        *,
        user_id: str,
        api_url: str | None = None,
        api_key_env: str = "HMEM_API_KEY",
        k: int = 10,
        score_threshold: float | None = 0.3,
        sequential: bool = False,
        annotate: bool = True,
        learn: bool = True,
        session_id: str | None = None,
        extract: bool | None = None,
    ) -> None:
        self._config = HmemMemoryConfig(
            user_id=check_user(user_id),
            api_url=api_url,
            api_key_env=api_key_env,
            k=k,
            score_threshold=score_threshold,
            sequential=sequential,
            annotate=annotate,
            learn=learn,
            session_id=session_id,
        )
        self._owns_backend = backend is None
        if backend is None:
            backend = _backend(api_url, api_key_env)
        self.port = Port(backend)
        self.writer = TurnWriter(self.port, source=SOURCE, extract=extract)

    @property
    def user_id(self) -> str:
        return self._config.user_id

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        state = await model_context.save_state()
        messages = [m for m in state["messages"] if not _ours(m)]
        if len(messages) != len(state["messages"]):  # last turn's memory block goes
            await model_context.load_state({**state, "messages": messages})
        users = [m for m in messages if m.get("type") == "UserMessage"]
        query = _text(users[-1]) if users else ""
        if query.strip() or self._config.sequential:
            found = await self.query(query)
        else:
            found = MemoryQueryResult(results=[])
        if found.results:
            lines = "\n".join(f"{i}. {r.content!s}" for i, r in enumerate(found.results, 1))
            await model_context.add_message(SystemMessage(content=f"{HEADER}\n{lines}"))
        if self._config.learn and users:
            await self._learn(users)
        return UpdateContextResult(memories=found)

    async def _learn(self, users: list[dict[str, Any]]) -> None:
        turns = [
            Turn("user", text, key=hashlib.sha256(text.encode()).hexdigest()[:16])
            for text in (_text(m) for m in users)
            if text.strip()
        ]
        await self.writer.write(
            self.user_id,
            turns,
            session_id=self._config.session_id,
            track=(self.user_id, self._config.session_id or ""),
        )

    async def query(
        self,
        query: str | MemoryContent = "",
        cancellation_token: CancellationToken | None = None,
        **kwargs: Any,
    ) -> MemoryQueryResult:
        """The items closest to ``query``. ``k`` / ``top_k``, ``score_threshold`` /
        ``distance_threshold`` and ``sequential`` override the memory's own for this
        query (the names of AutoGen's Chroma and Redis memories)."""
        if isinstance(query, MemoryContent):
            text = _searchable(query)
        elif isinstance(query, str):
            text = query
        else:
            raise TypeError(f"query takes a str or a MemoryContent, not {type(query).__name__}")
        k = int(kwargs.pop("top_k", kwargs.pop("k", self._config.k)))
        threshold = self._config.score_threshold
        if "score_threshold" in kwargs:
            threshold = kwargs.pop("score_threshold")
        if "distance_threshold" in kwargs:
            distance = kwargs.pop("distance_threshold")
            threshold = None if distance is None else 1.0 - float(distance)
        sequential = bool(kwargs.pop("sequential", self._config.sequential))
        if self._config.sequential and not sequential:
            raise ValueError("this memory is sequential: it cannot answer by relevance")
        if sequential:
            return MemoryQueryResult(results=await self._recent(k))
        if not text.strip():
            return MemoryQueryResult(results=[])
        found: SearchResult = await self.port.acall(
            "search", text, user_id=self.user_id, k=max(k, 30)
        )
        asked = _terms(text)
        scored = []
        for hit in found.hits:  # a replaced fact too, when the question is about the past
            score = _relevance(hit, asked)
            if threshold is not None and score < threshold:
                continue
            scored.append((score, hit))
        scored.sort(key=lambda pair: -pair[0])
        return MemoryQueryResult(results=[self._content(h.fact, s, h) for s, h in scored[:k]])

    async def _recent(self, k: int) -> list[MemoryContent]:
        """The last ``k`` items added, oldest first (as they were added)."""
        facts: list[Fact] = await self.port.acall("facts", user_id=self.user_id, limit=10_000)
        facts.sort(key=lambda f: f.ingested_at)
        return [self._content(f, None, None) for f in facts[-k:]] if k > 0 else []

    def _content(self, fact: Fact, score: float | None, hit: Hit | None) -> MemoryContent:
        content, mime, metadata = _decode(fact)
        if hit is not None and not fact.source.startswith(ITEM_SOURCE):
            content = hit_line(hit)  # hmem's own fact: dated, and what replaced it
        if self._config.annotate:
            metadata = {**metadata, "id": fact.id, "valid_from": fact.valid_from.isoformat()}
            if score is not None:
                metadata["score"] = float(score)
        return MemoryContent(content=content, mime_type=mime, metadata=metadata)

    async def add(
        self, content: MemoryContent, cancellation_token: CancellationToken | None = None
    ) -> None:
        """Remembers the item verbatim (its type and metadata with it)."""
        text, envelope = _encode(content)
        try:
            await self.port.acall(
                "remember", text, user_id=self.user_id, source=envelope, infer=False
            )
        except PolicyRefusal as refused:
            raise ValueError(f"hmem refused this memory content: {refused}") from refused

    async def clear(self) -> None:
        """Erases this user's memory in hmem (``erase_user``: every fact, its history
        and queued sessions; the audit trail records the erasure)."""
        await self.port.acall("erase_user", self.user_id)

    async def close(self) -> None:
        """Closes the backend this memory built; a backend handed in stays open."""
        if not self._owns_backend:
            return
        backend = self.port.backend
        if self.port.is_async:
            await backend.shutdown()  # type: ignore[misc]
        else:
            backend.shutdown()

    def _to_config(self) -> HmemMemoryConfig:
        return self._config

    @classmethod
    def _from_config(cls, config: HmemMemoryConfig) -> Self:
        return cls(**config.model_dump())


def _backend(api_url: str | None, api_key_env: str) -> Backend:
    if api_url is None:
        from hmem import Memory as Embedded

        return Embedded()
    from hmem import AsyncClient

    key = os.environ.get(api_key_env)
    if not key:
        raise ValueError(f"HmemMemory at {api_url} needs an API key in ${api_key_env}")
    return AsyncClient(api_url, api_key=key)


def _terms(text: str) -> set[str]:
    """A query's content words and names (hmem's lexical reading: stop words out)."""
    content, names = lexical_words(text)
    return {*content, *names}


def _relevance(hit: Hit, asked: set[str]) -> float:
    """0-1, the memory's ``score``: the cosine similarity of the query and the item
    (hmem's dense signal), raised by the share of the query's content words the item has
    (hmem's lexical side): ``1 - (1 - cosine) * (1 - share)``. An item that shares no
    word scores its cosine; one with every word of the query scores 1."""
    if asked:
        words = {w.casefold() for w in re.findall(r"\w+", hit.fact.text)}
        share = len(asked & words) / len(asked)
    else:
        share = 0.0
    cosine = hit.raw.get("dense", 0.0)
    return 1.0 - (1.0 - cosine) * (1.0 - share)


def _mime(content: MemoryContent) -> str:
    mime = content.mime_type
    return mime.value if isinstance(mime, MemoryMimeType) else str(mime)


def _searchable(content: MemoryContent) -> str:
    """The text a query searches with (a JSON query: its JSON)."""
    value = content.content
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot search with {type(value).__name__} content")


def _encode(content: MemoryContent) -> tuple[str, str]:
    """(the fact's text, its source) for an item."""
    mime, value = _mime(content), content.content
    encoding = None
    if mime == MemoryMimeType.JSON.value:
        if not isinstance(value, dict):
            raise ValueError("JSON content must be a dict")
        text, encoding = json.dumps(value, ensure_ascii=False), "json"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, bytes):
        text, encoding = base64.b64encode(value).decode(), "bytes"
    elif isinstance(value, Image):
        text, encoding = value.to_base64(), "image"
    elif isinstance(value, dict):
        text, encoding = json.dumps(value, ensure_ascii=False), "json"
    else:
        raise ValueError(f"Unsupported content type: {type(value).__name__}")
    if not text.strip():
        raise ValueError("memory content is empty")
    envelope: dict[str, Any] = {"m": mime}
    if encoding:
        envelope["e"] = encoding
    if content.metadata:
        envelope["md"] = content.metadata
    try:
        source = ITEM_SOURCE + json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
    except TypeError as exc:
        raise ValueError(f"metadata must be JSON values: {exc}") from exc
    if len(source) > _MAX_SOURCE and "md" in envelope:
        # more metadata than a source holds: kept in full, as JSON in the text beside the
        # content (that item's search text then carries it too)
        text = json.dumps({"c": text, "md": envelope.pop("md")}, ensure_ascii=False)
        envelope["x"] = 1
        source = ITEM_SOURCE + json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
    if len(source) > _MAX_SOURCE:
        raise ValueError(
            f"mime type too long for hmem: {len(source) - len(ITEM_SOURCE)} characters as "
            f"JSON, {_MAX_SOURCE - len(ITEM_SOURCE)} at most"
        )
    return text, source


def _decode(fact: Fact) -> tuple[Any, MemoryMimeType | str, dict[str, Any]]:
    """An item as it was added; a fact hmem holds otherwise (learned, extracted, or
    from another face) as text."""
    if not fact.source.startswith(ITEM_SOURCE):
        return fact.text, MemoryMimeType.TEXT, {}
    envelope = json.loads(fact.source[len(ITEM_SOURCE) :])
    encoding = envelope.get("e")
    value: Any = fact.text
    if envelope.get("x"):  # the metadata is in the text, beside the content
        inside = json.loads(fact.text)
        value, envelope["md"] = inside["c"], inside["md"]
    if encoding == "json":
        value = json.loads(value)
    elif encoding == "bytes":
        value = base64.b64decode(value)
    elif encoding == "image":
        value = Image.from_base64(value)
    mime_value = envelope.get("m", MemoryMimeType.TEXT.value)
    try:
        mime: MemoryMimeType | str = MemoryMimeType(mime_value)
    except ValueError:
        mime = mime_value
    return value, mime, dict(envelope.get("md") or {})


def _ours(message: dict[str, Any]) -> bool:
    return message.get("type") == "SystemMessage" and str(message.get("content", "")).startswith(
        HEADER
    )


def _text(message: dict[str, Any]) -> str:
    content = UserMessage.model_validate(message).content
    return (
        content if isinstance(content, str) else " ".join(c for c in content if isinstance(c, str))
    )
