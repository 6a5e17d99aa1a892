"""Database-free rankers over the same texts and vectors hmem stores: plain BM25
(bm25s's, Lucene's variant), dense cosine, and their weighted hybrid. They are the
baselines that make the graph store's gain (or loss) visible, and they need no Neo4j."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import bm25s
import numpy as np
import numpy.typing as npt

__all__ = ["BM25", "count_tokens", "minmax"]

_TOKEN = re.compile(r"\w+|[^\w\s]")

Vector = npt.NDArray[np.float64]


def count_tokens(text: str) -> int:
    """An offline token count close to a BPE tokenizer's for English: words and
    punctuation, long words counting one token per six characters."""
    return sum(
        max(1, math.ceil(len(piece) / 6)) if piece.isalnum() else 1
        for piece in _TOKEN.findall(text)
    )


class BM25:
    """BM25 (k1 = 1.2, b = 0.75; English stop words out, no stemming) over a fixed list
    of documents: bm25s's index, scored for every document at once."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> None:
        self._size = len(documents)
        self._index = bm25s.BM25(k1=k1, b=b)
        if documents:
            self._index.index(_tokens(documents), show_progress=False)

    def scores(self, query: str) -> Vector:
        terms = _tokens([query])[0] if self._size else []
        if not terms:  # only stop words: nothing to score
            return np.zeros(self._size, dtype=np.float64)
        return np.asarray(self._index.get_scores(terms), dtype=np.float64)


def _tokens(texts: Sequence[str]) -> list[list[str]]:
    found = bm25s.tokenize(list(texts), stopwords="en", return_ids=False, show_progress=False)
    return [list(t) for t in found]


def minmax(values: Vector) -> Vector:
    """Scale to 0–1 per query; a constant vector becomes zeros."""
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-12:
        return np.zeros_like(values)
    return (values - low) / (high - low)
