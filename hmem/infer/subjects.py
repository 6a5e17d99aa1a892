"""Whose a sentence is and which clause an ending names, for ``hmem.infer.changes``: the
subject from spaCy's dependency parse (or from the words when no trained pipeline is
installed), and the clause around an ending's cue."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hmem.slots.frames import PEOPLE
from hmem.slots.values import STATEMENT_WORDS
from hmem.slots.whose import whose

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["clause_of", "not_a_person", "subject_from_parse", "subject_from_words"]

_PRONOUNS = {"i": "user", "we": "user", "me": "user"}
_THIRD = frozenset({"he", "she", "they", "it", "him", "her", "them", "this", "that"})


def subject_from_parse(doc: Doc) -> str | None:
    for token in doc:
        if token.dep_ not in ("nsubj", "nsubjpass") or token.head.dep_ not in ("ROOT", "conj"):
            continue
        lower = token.lower_
        if lower in _PRONOUNS:
            return _PRONOUNS[lower]
        if lower in _THIRD:
            return None
        owners = [c for c in token.children if c.dep_ == "poss"]
        if owners:
            owner = owners[0].lower_
            whose = _PRONOUNS.get(owner, "user" if owner in ("my", "our") else owner)
            if owner in _THIRD or owner in ("his", "her", "their", "its"):
                return None
            # "my sister" is hers; "my age", "my job": the user's own
            lemma = token.lemma_.lower()
            return f"{whose}.{lemma}" if lemma in PEOPLE or whose != "user" else whose
        if token.pos_ == "PROPN":
            parts = [c.lower_ for c in token.lefts if c.dep_ == "compound"] + [lower]
            return " ".join(parts)
        return f"?{token.lemma_.lower()}"  # "the company", "my job": no person named
    return None


_SUBJECT = re.compile(
    r"^(?i:(?:actually|so|well|correction|update|btw|news|big news|oh)[,:!]?\s+)*"
    r"(?:(?P<i>(?i:i|we))\b|(?P<my>(?i:my))\s+(?P<rel>[a-z]+)\b|"
    r"(?P<owner>[A-Z]\w+)'s\s+(?P<orel>[a-z]+)\b|(?P<name>[A-Z]\w+(?:\s+[A-Z]\w+)?)\b)"
)


def subject_from_words(text: str) -> str | None:
    m = _SUBJECT.match(text.strip())
    if m is None:
        return None
    if m.group("i"):
        return "user"
    if m.group("my"):
        return f"user.{m.group('rel').lower().rstrip('s')}"
    if m.group("owner"):
        return f"{m.group('owner').lower()}.{m.group('orel').lower()}"
    name = m.group("name").lower()
    return None if name in _THIRD else name


# Where an ending's clause stops: "Jon lost his job but used it to start a dance studio"
# ends the job, not the studio.
_CLAUSE_BREAK = re.compile(
    r"[,;:.!?]|\s(?:but|and|so|because|after|which|while|then|to|as)\s", re.IGNORECASE
)


def clause_of(text: str, start: int, end: int) -> str:
    # "stopped going to pottery classes": a gerund's "to" goes on with its clause
    breaks = [
        m
        for m in _CLAUSE_BREAK.finditer(text)
        if not (m.group(0).strip() == "to" and re.search(r"\w+ing$", text[: m.start()]))
    ]
    left = max((m.end() for m in breaks if m.end() <= start), default=0)
    right = min((m.start() for m in breaks if m.start() >= end), default=len(text))
    return text[left:right]


#: A value before its verb: "Bilbao is where I live now", "Taleggio wins", "Heads-up: Ocado
#: is my employer now".
_VALUE_FIRST = re.compile(
    r"^(?:[^,;:]{0,40}[:\u2014-]\s+)?(?:the |an? )?[A-Z][\w'-]*(?:\s+[A-Z0-9][\w'-]*){0,3}\s+"
    r"(?:is|isn't|was|wins|became|has become|has overtaken|is now|is no longer)\b"
)


def not_a_person(subject: str, text: str) -> bool:
    """The parse's subject is no one, and the words are the user's: "the user", a thing
    ("?water": "sparkling water is now my usual drink"), or a value first ("Bilbao is
    where I live now", "Taleggio wins")."""
    if subject in ("?user", "user.user"):
        return True
    if len(text.split()) > STATEMENT_WORDS:
        return False  # a chat message's parse subject is its first sentence's, no more
    mine = whose(text) == "user"
    return mine and (subject.startswith("?") or _VALUE_FIRST.match(text) is not None)
