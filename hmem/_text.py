"""Text normalisation shared by the write path and the store."""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["adds_content", "content_words", "fact_hash", "normalise"]

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " .,;:!?\"'`()[]{}"


def normalise(text: str) -> str:
    """Case, width, whitespace and edge punctuation folded: 'Maya is vegetarian.' ==
    ' maya  is VEGETARIAN '."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", folded).strip(_EDGE_PUNCT)


def fact_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:32]


_WORD = re.compile(r"[\w']+")
_STOPWORDS = frozenset(
    {
        *("a", "an", "the", "is", "are", "was", "were", "be", "been", "am", "of", "in"),
        *("on", "at", "to", "for", "with", "and", "or", "but", "as", "by", "from"),
        *("that", "this", "these", "those", "it", "its", "it's", "now", "also", "very"),
        *("really", "just", "still", "her", "his", "their", "our", "my", "your", "has"),
        *("have", "had", "does", "do", "did"),
    }
)


def content_words(text: str) -> frozenset[str]:
    """The words that carry a statement's content: case-folded, stop words dropped,
    possessive and plural 's' trimmed ("Maya's" -> "maya")."""
    words = set()
    for word in _WORD.findall(normalise(text)):
        word = word.removesuffix("'s")
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word not in _STOPWORDS:
            words.add(word)
    return frozenset(words)


def adds_content(new: str, old: str) -> bool:
    """True when ``new`` says something ``old`` does not: a content word ``old`` lacks.
    Guards the cosine dedup, which scores "works at Acme" and "used to work at Acme"
    0.98 apart with MiniLM: skipping such a fact would lose it."""
    return not content_words(new) <= content_words(old)
