"""The parse's reading of each statement (``hmem.slots.parsed``), cached per text: the
read path asks it of the same facts search after search, the write path primes it with
the parses it made anyway."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hmem.slots.parse import parser_pipeline
from hmem.slots.parsed import MAX_PARSE_WORDS, Parsed, read_doc

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["parsed_reading", "prime"]

_CACHE: dict[str, Parsed | None] = {}
_CACHE_SIZE = 8192
_lock = threading.Lock()


def _store(text: str, found: Parsed | None) -> None:
    with _lock:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[text] = found


def _parsable(text: str) -> bool:
    return 0 < len(text.split()) <= MAX_PARSE_WORDS


def prime(texts: Sequence[str], docs: Sequence[Doc] | None = None) -> None:
    """Read the texts not read yet in one pass of the parser (or from ``docs``, the
    caller's parses of the same texts): a search or a write reads many at once."""
    with _lock:
        todo = [t for t in dict.fromkeys(texts) if t not in _CACHE and _parsable(t)]
    if not todo:
        return
    if docs is not None:
        parsed = dict(zip(texts, docs, strict=True))
        for text in todo:
            _store(text, read_doc(parsed[text]))
        return
    nlp = parser_pipeline()
    if nlp is None:
        return
    for text, doc in zip(todo, nlp.pipe(todo), strict=True):
        _store(text, read_doc(doc))


def parsed_reading(text: str) -> Parsed | None:
    """The parse's reading of ``text`` (cached); None when nothing is read or no trained
    pipeline is installed."""
    with _lock:
        if text in _CACHE:
            return _CACHE[text]
    if not _parsable(text):
        return None
    nlp = parser_pipeline()
    if nlp is None:
        return None
    found = read_doc(nlp(text))
    _store(text, found)
    return found
