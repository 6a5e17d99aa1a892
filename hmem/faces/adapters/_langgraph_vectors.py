"""The LangGraph store's index vectors, a mixin of ``hmem.faces.adapters.langgraph``'s
stores: the texts an ``index`` config (or a put's ``index``) names in a value, and
their vectors from your ``embed``, computed at put time and kept in the process (at
most ``max_vectors``, least recently used first); a text whose vector is not there
(after a restart) is embedded again when a search first scores it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

try:
    from langchain_core.embeddings import Embeddings
    from langgraph.store.base import get_text_at_path
except ImportError as exc:  # the framework is the langgraph extra
    from hmem.faces.adapters._core import missing

    raise missing("langgraph", "langgraph") from exc

__all__ = ["IndexVectors"]


class IndexVectors:
    """The index-vector cache (the store's slots hold the state)."""

    __slots__ = ()
    _embed: Embeddings | None
    _fields: list[str]
    _lock: threading.Lock
    _vectors: OrderedDict[str, list[float]]
    max_vectors: int

    def _texts(self, value: dict[str, Any], index: bool | list[str] | None) -> list[str]:
        if self._embed is None or index is False:
            return []
        paths = self._fields if index is None or index is True else index
        return [t for path in paths for t in get_text_at_path(value, path)]

    def _cached(self, text: str) -> list[float] | None:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
            return vector

    async def _vectors_of(self, texts: Sequence[str]) -> dict[str, list[float]]:
        """Vectors of the texts, from the cache or embedded (one batch)."""
        out: dict[str, list[float]] = {}
        todo: list[str] = []
        for text in dict.fromkeys(texts):
            vector = self._cached(text)
            if vector is None:
                todo.append(text)
            else:
                out[text] = vector
        if todo and self._embed is not None:
            vectors = await self._embed.aembed_documents(todo)
            with self._lock:
                for text, vector in zip(todo, vectors, strict=True):
                    out[text] = list(vector)
                    self._vectors[text] = list(vector)
                while len(self._vectors) > self.max_vectors:
                    self._vectors.popitem(last=False)
        return out

    async def _embed_value(self, value: dict[str, Any], index: bool | list[str] | None) -> None:
        texts = self._texts(value, index)
        if texts:
            await self._vectors_of(texts)
