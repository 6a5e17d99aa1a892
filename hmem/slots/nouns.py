"""The lexicon of ``hmem.slots.parsed`` (``data/lexicon.json``) and what it asks of a
noun phrase: whose it is and which slot it names ("my name", "the cheese I like most",
"my top cheese", "my workout of choice")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hmem.slots.tokens import (
    SUBJECTS,
    child_of,
    is_proper,
    lemma_of,
    owner_of,
    person_of,
    pobj_of,
    whose_of,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

_HERE = Path(__file__).parent / "data"
_DATA: dict[str, Any] = json.loads((_HERE / "slots.json").read_text(encoding="utf-8"))
_LEX: dict[str, Any] = json.loads((_HERE / "lexicon.json").read_text(encoding="utf-8"))
PETS = frozenset(p for p in _DATA["pets"] if " " not in p)
NOUN_SLOT = {n: slot for slot, nouns in _DATA["nouns"].items() for n in nouns if " " not in n}
VERB_PREP = {key: slot for slot, keys in _LEX["verb_prep"].items() for key in keys}
NOUN_PREP = {key: slot for slot, keys in _LEX["noun_prep"].items() for key in keys}
VERB_OBJECT = {key: slot for slot, keys in _LEX["verb_object"].items() for key in keys}
CALL_OBJECT: dict[str, str] = _LEX["call_object"]
FAV_ADJ = frozenset(_LEX["favourite_adjectives"])
FAV_VERB = frozenset(_LEX["favourite_verbs"])
FAV_DEGREE = frozenset(_LEX["favourite_degree"])
FAV_OF = frozenset(_LEX["favourite_of"])
SWITCH = frozenset(_LEX["switch"])
DROP = frozenset(_LEX["drop_verbs"])

ROLE_ENDINGS = tuple(_LEX["role_endings"])
NOT_ROLES = frozenset(_LEX["not_roles"])

NAME_VERBS = frozenset(_LEX["name_verbs"])
SLOT_VERBS = frozenset(_LEX["slot_verbs"])
HOLD_VERBS = frozenset(_LEX["hold_verbs"])
LIGHT_VERBS = frozenset(_LEX["light_verbs"])


POINTERS = frozenset({"it", "this", "that"})
VALUES = ("PROPN", "NOUN", "NUM")
COUPLE = frozenset({"couple", "item", "together", "pair", "partner", "partners"})
PAIR_VERBS = frozenset(_LEX["pair_verbs"])


OBJECTS = ("dobj", "attr", "oprd", "xcomp", "npadvmod", "appos", "acomp")
#: Statements longer than this are not parsed for a slot (a message, not a statement).
MAX_PARSE_WORDS = 40


@dataclass(frozen=True)
class Parsed:
    """Whose, which slot, what value; ``known``: the lexicon named the slot; ``rank``: 2
    known, 1 a switch ("switched to X"), 0 a verb and its object; ``replaced``: values it
    says it lets go ("gave the cello away")."""

    subject: str | None
    slot: str
    value: str
    known: bool
    rank: int = 0
    replaced: frozenset[str] = field(default_factory=frozenset)
    past: int = 0  # 1 "it was Z", 2 "my favourite used to be Z": a value let go


def owner_np(n: Token) -> tuple[bool, str | None]:
    """(owned, whose) of a slot noun: its possessive ("my name", "Mia's", "her": the
    clause subject's), else the subject of the clause that qualifies it ("the cheese I
    like most")."""
    owner = child_of(n, ("poss",))
    if owner is not None:
        if owner.lower_ in ("his", "her", "their"):
            found = whose_of(n.head, skip=n)
            return True, None if found in (None, "user") else found
        return True, owner_of(owner)
    for c in n.children:
        if c.dep_ in ("relcl", "acl"):
            subject = child_of(c, SUBJECTS)
            if subject is not None:
                return True, person_of(subject)
    return False, None


def kind_of(t: Token) -> str:
    """The kind of a favourite as the words' reading names it ("board game")."""
    lo = t.i
    while lo > t.sent.start and t.doc[lo - 1].dep_ == "compound":
        lo -= 1  # "ice cream flavour", "board game"
    return " ".join([*(w.lower_ for w in t.doc[lo : t.i]), lemma_of(t)])


_LATEST = frozenset(("recently", "lately", "recent"))


def favourite_noun(n: Token) -> bool:
    """ "my favourite/top cheese", "the cheese I like most", "my workout of choice"."""
    for c in n.children:
        if c.dep_ in ("amod", "compound", "nmod") and lemma_of(c) in FAV_ADJ:
            return True
        degree = degree_of(c) if c.i > n.i else None
        # "the cheese I like most", "the sport I follow most closely" (not "the book I
        # read most recently": the latest, no favourite)
        liked = lemma_of(c) in FAV_VERB or (c.dep_ == "relcl" and c.pos_ == "VERB")
        if liked and degree is not None and degree.head.lower_ not in _LATEST:
            return True
        if c.dep_ == "prep" and c.lower_ == "of":
            obj = pobj_of(c)
            if obj is not None and lemma_of(obj) in FAV_OF:
                return True
    return False


def degree_of(verb: Token) -> Token | None:
    """The "most" / "best" / "more" of a favourite verb ("like most", "love best")."""
    for c in verb.subtree:
        near = c.head.i == verb.i or c.head.head.i == verb.i
        if near and c.lower_ in FAV_DEGREE and c.dep_ in ("advmod", "npadvmod", "dobj", "amod"):
            return c
    return None


def slot_np(n: Token, value: Token) -> tuple[str | None, str] | None:
    """(whose, slot) when the noun phrase headed by ``n`` names a slot."""
    if n.pos_ not in ("NOUN", "PROPN") or lemma_of(n) in FAV_ADJ:
        return None
    owned, whose = owner_np(n)
    if favourite_noun(n):
        return whose, f"favourite:{kind_of(n)}"
    if lemma_of(n) in NOUN_SLOT:
        # "The name is Isla", "Name's Bo": no one else's
        # a common noun is no value of these ("my house is a mess")
        bare = all(c.dep_ != "det" or c.lower_ == "the" for c in n.children)
        if (owned or bare) and (is_proper(value) or value.pos_ == "NUM"):
            return whose, NOUN_SLOT[lemma_of(n)]
    return None
