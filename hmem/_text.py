"""Text normalisation shared by the write path and the store."""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = [
    "LUCENE_STOP_WORDS",
    "adds_content",
    "content_words",
    "fact_hash",
    "lexical_length",
    "normalise",
]

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " .,;:!?\"'`()[]{}"


def normalise(text: str) -> str:
    """Case, width, whitespace and edge punctuation folded: 'Maya is vegetarian.' ==
    ' maya  is VEGETARIAN '."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", folded).strip(_EDGE_PUNCT)


def fact_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:32]


# Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET): a fact's length
# for the user's own BM25 counts its other words, as the analyzer does.
LUCENE_STOP_WORDS = (
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with",
)  # fmt: skip
_LUCENE_STOP = frozenset(LUCENE_STOP_WORDS)


def lexical_length(text: str) -> int:
    """A fact's length for the user's own BM25, stored on the fact when it is written
    (``lex_len``): its words split on spaces, lowercased, without Lucene's stop words.
    Counting them at search time was most of a 20,000-fact user's search
    (_candidates.cypher computes the same for a fact stored without it)."""
    return sum(1 for w in text.lower().split(" ") if w and w not in _LUCENE_STOP)


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


def lexical_user_key(user_id: str) -> str:
    """The user's key in the fulltext index (``Fact.user_key``): one token the English
    analyzer keeps whole (39 digits: no letters to stem, no punctuation to split on), the
    same for every process. A search requires it exactly, so Lucene finds this user's
    facts only: an id's words (``acme:7abc``) never match another id that contains them
    (``evil:q-acme-7abc``), and every cut-off counts this user's facts alone."""
    digest = hashlib.sha256(b"hmem-user-key\x00" + user_id.encode()).digest()
    return str(int.from_bytes(digest[:16], "big")).zfill(39)
