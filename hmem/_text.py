"""Text normalisation shared by the write path and the store."""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["fact_hash", "normalise"]

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " .,;:!?\"'`()[]{}"


def normalise(text: str) -> str:
    """Case, width, whitespace and edge punctuation folded: 'Maya is vegetarian.' ==
    ' maya  is VEGETARIAN '."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", folded).strip(_EDGE_PUNCT)


def fact_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:32]
