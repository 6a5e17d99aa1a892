"""Database-free rankers over the same texts and vectors hmem stores: plain BM25
(bm25s's index over our tokens), dense cosine, and their weighted hybrid. They are the
baselines that make the graph store's gain (or loss) visible, and they need no Neo4j."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import bm25s
import numpy as np
import numpy.typing as npt

__all__ = ["BM25", "count_tokens", "minmax", "tokenize"]

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_TOKEN = re.compile(r"\w+|[^\w\s]")

# Function words only: every content word still counts.
STOPWORDS = frozenset(
    """
    a an the and or but of to in on at for with by from as is are was were be been being
    do does did has have had i you he she it we they me him her us them my your his its
    our their this that these those what which who whom when where why how s t
    """.split()  # noqa: SIM905  (a word list reads better as prose)
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
    """BM25 (k1 = 1.2, b = 0.75) over a fixed list of documents, split by ``tokenize``
    (function words out, no stemming): bm25s's index, every document scored at once."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.2, b: float = 0.75) -> None:
        self._size = len(documents)
        self._index = bm25s.BM25(k1=k1, b=b)
        tokens = [tokenize(d) for d in documents]
        self._indexed = any(tokens)  # bm25s cannot index documents without a word
        if self._indexed:
            self._index.index(tokens, show_progress=False)

    def scores(self, query: str) -> Vector:
        terms = sorted(set(tokenize(query)))  # each word once; unknown ones score nothing
        if not terms or not self._indexed:  # only function words, or nothing to rank
            return np.zeros(self._size, dtype=np.float64)
        return np.asarray(self._index.get_scores(terms), dtype=np.float64)


def minmax(values: Vector) -> Vector:
    """Scale to 0–1 per query; a constant vector becomes zeros."""
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-12:
        return np.zeros_like(values)
    return (values - low) / (high - low)
