"""The question's vector: one embedding call per search, and none for a question asked
again (an LRU cache of the last ``size`` questions' vectors)."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

__all__ = ["QueryEmbedder", "QuestionVectors"]


class QueryEmbedder(Protocol):
    """What recall needs of an embedding client (``hmem.extract.EmbeddingClient`` fits).
    One that also has ``embed_query`` (``LocalEmbeddings``: its latency path) is asked
    through it."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class QuestionVectors:
    """Question vectors, cached by (embedder, text as asked, text without names, share)."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._cache: OrderedDict[tuple[int, str, str, float], list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def vector(
        self, embedder: QueryEmbedder, query: str, unnamed: str, share: float
    ) -> tuple[list[float], bool]:
        """The vector and whether the cache gave it."""
        key = (id(embedder), query, unnamed, share)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return found, True
        vector = mixed(embedder, query, unnamed, share)
        if self.size > 0:
            with self._lock:
                self._cache[key] = vector
                while len(self._cache) > self.size:
                    self._cache.popitem(last=False)
        return vector, False


def mixed(embedder: QueryEmbedder, query: str, unnamed: str, share: float) -> list[float]:
    """The unit mix of the question's embedding as asked (``share``) and without its
    names, both in one call. The names pull a question toward the named person's
    shortest sentences; without them a turn that starts "Caroline:" loses who said it.
    Mixed, LoCoMo's dev split gains at every cut over either alone (docs/retrieval.md)."""
    embed = getattr(embedder, "embed_query", None) or embedder.embed
    if unnamed == query or share >= 1.0:
        [vector] = embed([query])
        return list(vector)
    if share <= 0.0:
        [vector] = embed([unnamed])
        return list(vector)
    named, bare = embed([query, unnamed])
    mix = [share * a + (1.0 - share) * b for a, b in zip(named, bare, strict=True)]
    norm = math.sqrt(sum(x * x for x in mix))
    return [x / norm for x in mix] if norm > 0.0 else list(bare)
