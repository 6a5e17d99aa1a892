"""Database-free rankers over the same texts and vectors hmem stores: plain BM25,
dense cosine, and their weighted hybrid. They are the baselines that make the graph
store's gain (or loss) visible, and they need no Neo4j."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["BM25", "count_tokens", "minmax", "tokenize"]

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_TOKEN = re.compile(r"\w+|[^\w\s]")

# Function words only: every content word still counts.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "i",
        "you",
        "he",
        "she",
        "it",
        "we",
        "they",
        "me",
        "him",
        "her",
        "us",
        "them",
        "my",
        "your",
        "his",
        "its",
        "our",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "did",
        "s",
        "t",
    ]
)

Vector = npt.NDArray[np.float64]


def tokenize(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def count_tokens(text: str) -> int:
    """An offline token count close to a BPE tokenizer's for English: words and
    punctuation, long words counting one token per six characters."""
    return sum(
        max(1, math.ceil(len(piece) / 6)) if piece.isalnum() else 1
        for piece in _TOKEN.findall(text)
    )


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over a fixed list of documents."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._docs = [Counter(tokenize(d)) for d in documents]
        self._lengths = np.array([sum(c.values()) for c in self._docs], dtype=np.float64)
        self._avg = float(self._lengths.mean()) if len(self._docs) else 0.0
        df: Counter[str] = Counter()
        for counts in self._docs:
            df.update(counts.keys())
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for i, counts in enumerate(self._docs):
            for term, tf in counts.items():
                self._postings.setdefault(term, []).append((i, tf))

    def scores(self, query: str) -> Vector:
        out = np.zeros(len(self._docs), dtype=np.float64)
        norm = self.k1 * (1 - self.b + self.b * self._lengths / max(self._avg, 1e-9))
        for term in set(tokenize(query)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for i, tf in self._postings[term]:
                out[i] += idf * tf * (self.k1 + 1) / (tf + norm[i])
        return out


def minmax(values: Vector) -> Vector:
    """Scale to 0–1 per query; a constant vector becomes zeros."""
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-12:
        return np.zeros_like(values)
    return (values - low) / (high - low)
