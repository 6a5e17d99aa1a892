"""What the readers of ``hmem.slots.parsed`` ask of a parsed token: its lemma, its
children by relation, the words of a value, and whose a subject, an object or a clause
is ("I", "me", "we": the user; "my aunt": ``user.aunt``; "Arjun": ``arjun``; "he",
"she", "people": no one the words name)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.tokens import Token

_DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "slots.json").read_text(encoding="utf-8")
)
_LEX: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "lexicon.json").read_text(encoding="utf-8")
)

__all__ = [
    "FIRST",
    "GROUP",
    "KIN_NAMES",
    "MINE",
    "NOT_PART",
    "NO_VALUE",
    "PEOPLE",
    "SLOT_NOUNS",
    "SUBJECTS",
    "THIRD",
    "child_of",
    "inside",
    "is_proper",
    "lemma_of",
    "named_one",
    "owner_of",
    "particle_of",
    "person_of",
    "pobj_of",
    "span_of",
    "whose_of",
]

PEOPLE = frozenset(_DATA["people"])
FIRST = {"i": "user", "me": "user", "we": "user", "us": "user", "myself": "user"}
MINE = frozenset({"my", "our", "mine"})
THIRD = frozenset({"he", "she", "they", "him", "her", "them", "his", "their", "hers"})
NO_VALUE = frozenset(
    "it them that this these those you him her me us one something anything everything "  # noqa: SIM905
    "nothing someone anyone everyone there here what which who i we he she they".split()
)
#: Words before a value that are no part of it ("my new place", "an old favourite").
NOT_PART = frozenset(
    "new old current latest usual own first last previous former same other little big "  # noqa: SIM905
    "small great good nice lovely favourite favorite top".split()
)
SUBJECTS = ("nsubj", "nsubjpass")
GROUP = frozenset(_LEX["group_subjects"])
#: Kin called by the word as a name ("Mum", "Dad", "Grandma"): the user's.
KIN_NAMES = frozenset("mum mom dad mother father grandma grandpa granny gran nan nana".split())  # noqa: SIM905
#: Words that name a slot ("email", "birthday", "nickname", "hobby"): a correction that
#: says one puts right a statement of it ("I gave you the wrong email earlier").
SLOT_NOUNS = frozenset(_DATA["single"]) | frozenset(_DATA["multi"])
SLOT_NOUNS |= {w for ws in _DATA["nouns"].values() for w in ws}
SLOT_NOUNS |= {"postcode", "surname", "number", "colour", "color", "date"}


def lemma_of(t: Token) -> str:
    return str(t.lemma_).lower()


def child_of(t: Token, deps: Sequence[str]) -> Token | None:
    return next((c for c in t.children if c.dep_ in deps), None)


def pobj_of(p: Token) -> Token | None:
    return next((c for c in p.children if c.dep_ in ("pobj", "pcomp")), None)


def particle_of(t: Token) -> str | None:
    found = child_of(t, ("prt",))
    return None if found is None else lemma_of(found)


def span_of(v: Token) -> str:
    """The value's words: the token with the words just before it that qualify it
    (compounds, numbers, adjectives: "Porto Alegre", "creme brulee", "swimming laps"),
    not its determiner or a word such as "new", and the numbers after it ("March 4")."""
    doc = v.doc
    lo = hi = v.i
    while lo > v.sent.start:
        left = doc[lo - 1]
        part = left.dep_ in ("compound", "nmod", "nummod") or (
            left.dep_ == "amod" and left.lower_ not in NOT_PART
        )
        if not part or not lo <= left.head.i <= hi:
            break
        lo -= 1
    for c in v.rights:
        if c.dep_ in ("compound", "flat", "nummod") or (c.dep_ == "npadvmod" and c.like_num):
            hi = max(hi, c.right_edge.i)
    return str(doc[lo : hi + 1].text)


def person_of(t: Token) -> str | None:
    """Whose a subject or object token names: "user", "arjun", "user.aunt"; None."""
    lower = t.lower_
    if lower in FIRST:
        return FIRST[lower]
    if lower in THIRD or lower in GROUP or lower in NO_VALUE:
        return None
    if t.pos_ == "PROPN":
        parts = [c.lower_ for c in t.lefts if c.dep_ == "compound"] + [lower]
        return " ".join(parts)
    owner = child_of(t, ("poss",))
    if owner is not None and lemma_of(t) in PEOPLE:
        base = owner_of(owner)
        return None if base is None else f"{base}.{lemma_of(t)}"
    return None


def owner_of(owner: Token) -> str | None:
    if owner.lower_ in MINE:
        return "user"
    if owner.pos_ == "PROPN":
        return owner.lower_
    return None


def inside(t: Token, outer: Token) -> bool:
    return outer.left_edge.i <= t.i <= outer.right_edge.i


def whose_of(t: Token, skip: Token | None = None) -> str | None:
    """The subject of the clause ``t`` is in: up the heads to a verb with a subject (not
    one that holds ``skip``: "Fatima says *her* favourite is ..." is Fatima's)."""
    current = t
    for _ in range(6):
        subject = child_of(current, SUBJECTS)
        if subject is not None and subject.i != t.i and not (skip and inside(skip, subject)):
            return person_of(subject)
        if current.dep_ in ("relcl", "acl") and current.pos_ in ("VERB", "AUX"):
            return None  # "shoes that work for any trail": the thing's
        if current.head.i == current.i:
            return None
        current = current.head
    return None


def named_one(t: Token) -> bool:
    """A person a value may be given to ("know *me* as", "address *Mia* as")."""
    return t.pos_ in ("PRON", "PROPN") or lemma_of(t) in PEOPLE


def is_proper(t: Token) -> bool:
    """A name: a proper noun, or a capitalised word inside the sentence."""
    return t.pos_ == "PROPN" or (t.pos_ == "NOUN" and t.text[:1].isupper() and t.i != t.sent.start)
