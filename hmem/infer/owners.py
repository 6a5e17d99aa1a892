"""Whose a value is, read per clause: in a long chat turn ("I'm trying to solve this
problem, I've recently increased my practice sessions to 12 problems, can you help
me …") the subject of the whole message is anybody's guess (the parse's root is often
"can you help"), but the value sits in a clause whose subject says whose it is: "I've
… increased … to 12" is the user's, "my accuracy improved from 60% to 85%" too, "Tom's
sister has 3 kids" is Tom's sister's, "he ran 10 km" someone else's.

The rule (general, for any chat): from the value's word, go up spaCy's dependency
tree to the first clause with a subject; "I"/"we", or a thing the user's "my"/"our"
owns, is the user's; a person the user names ("my sister", "Tom's sister", "Tom") is
that person's; "he"/"she"/"they"/"you" is someone unknown (None). A relative pronoun
("which has recently improved to 250ms") stands for the noun it follows: the walk goes
on from there. A clause with no subject (participles: "after completing 8 problems")
belongs to the clause it hangs from. Nothing found: the text's owner.

The same walk reads what the clause says changed, when its subject is a thing ("my quiz
score improved from 78% to 88%": score): two percentages are one measure only if, where
both clauses name that thing, it is the same ("my accuracy improved to 90%" is another).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from hmem.slots import parser_pipeline
from hmem.slots.frames import PEOPLE

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["value_owner"]

_USER = frozenset({"i", "we", "me", "us"})
_USER_POSS = frozenset({"my", "our"})
_OTHER = frozenset({"he", "she", "they", "you", "him", "her", "them", "it", "his", "their", "its"})
_RELATIVE = frozenset({"which", "that", "who", "whom", "whose"})
# Nouns naming a person: "my sister's" values are hers, not the user's.
_PEOPLE = PEOPLE
# A sentence longer than this is parsed up to here only (the parse is the cost).
_PARSE_CHARS = 1200


@functools.lru_cache(maxsize=2048)
def _parse(sentence: str) -> Doc | None:
    nlp = parser_pipeline()
    return None if nlp is None else nlp(sentence[:_PARSE_CHARS])


def _of_subject(subject: Token) -> str | None:
    lower = subject.lower_
    if lower in _USER:
        return "user"
    if lower in _OTHER:
        return None
    lemma = subject.lemma_.lower()
    poss = [c for c in subject.children if c.dep_ == "poss"]
    if poss:
        whose = poss[0].lower_.removesuffix("'s")
        if whose in _USER_POSS:
            return f"user.{lemma}" if lemma in _PEOPLE else "user"
        if whose in _OTHER:
            return None
        return f"{whose}.{lemma}" if lemma in _PEOPLE else whose
    if subject.pos_ == "PROPN":
        return lower
    return "" if lemma not in _PEOPLE else None  # "" : a thing, nobody's yet


def _walk(token: Token) -> tuple[str | None, str | None]:
    """The owner up the tree from ``token`` ("" when no clause names a person), and
    the thing its clause says changed, when it says one (the subject noun: "my quiz
    score improved to 88%" → score; "the response time, which improved to 250ms" →
    time)."""
    node = token
    measure: str | None = None
    for _ in range(40):  # a parse is a tree; the bound only guards a cycle
        subjects = [c for c in node.children if c.dep_ in ("nsubj", "nsubjpass")]
        if subjects and subjects[0].lower_ in _RELATIVE:
            if measure is None and node.dep_ == "relcl" and node.head.pos_ == "NOUN":
                measure = node.head.lemma_.lower()
        elif subjects:
            found = _of_subject(subjects[0])
            if measure is None and subjects[0].pos_ == "NOUN":
                lemma = subjects[0].lemma_.lower()
                measure = None if lemma in _PEOPLE else lemma
            if found != "":
                return found, measure
        if node.head.i == node.i:
            return "", measure
        node = node.head
    return "", measure


_WORD_OWNER = re.compile(
    r"\b(?:(?P<user>I|I'm|I've|I'd|I'll|we|we've|we're|my|our)|"
    r"(?P<other>he|she|they|his|her|their|you|your))\b"
)


def value_owner(sentence: str, at: int, fallback: str | None) -> tuple[str | None, str | None]:
    """Whose the value at ``at`` in ``sentence`` is (see the module; ``fallback``, the
    text's owner, when no clause above it names a person), and the noun its clause
    says changed (None: not said)."""
    doc = _parse(sentence)
    if doc is None or at >= len(doc.text):
        # no parser: the nearest person word before the value
        found = None
        for m in _WORD_OWNER.finditer(sentence[:at]):
            found = "user" if m.group("user") else None
        return (found if found is not None or _WORD_OWNER.search(sentence[:at]) else fallback), None
    span = doc.char_span(at, at + 1, alignment_mode="expand")
    if span is None or not len(span):
        return fallback, None
    found, measure = _walk(span[0])
    return (fallback if found == "" else found), measure
