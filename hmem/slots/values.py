"""What a value is in a statement's words: its text without the words around it ("now",
"these days", a reason clause; ``norm``), and the values a statement says it replaces
("instead of coffee", "from Lisbon to Porto", ", not May 3", "traded my Corolla for";
``replaced``), or leaves behind in a clause that drops them ("I'm not on a Pixel 9
anymore", "Turquoise is no longer my colour", "out with Hanoi"; ``dropped``)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

__all__ = [
    "CORRECTION",
    "SLIP",
    "STATEMENT_WORDS",
    "WAS",
    "corrected",
    "dropped",
    "norm",
    "replaced",
    "then_states",
    "to_value",
]

_TAIL = re.compile(
    r"\s+(?:now|rn|atm|tbh|lol|imo|honestly|these days|nowadays|today|tonight|yesterday|"
    r"from now on|instead|too|also|"
    r"as well|anymore|any more|again|lately|recently|fluently|by profession|by trade|"
    r"(?:last|this|next) (?:week|month|year|spring|summer|autumn|fall|winter|weekend)|"
    r"(?:in|during) the (?:spring|summer|autumn|fall|winter)|"
    r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"every (?:morning|day|week|evening|night)|in the mornings?|"
    r"in (?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)(?: \d{1,2}(?:st|nd|rd|th)?)?(?:,? \d{4})?|in \d{4}|since \d{4}|"
    r"so please do too|please|instead of .*|rather than .*|"
    r"not .*|and I.*|for (?:good|now)|at the moment|these days|last time|"
    r"for (?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|many) "
    r"(?:years?|months?|weeks?|days?)|"
    # a clause that gives a reason or goes on is no part of the value ("Harry Potter
    # because it is immersive")
    r"(?:because|since|which|who|although|though|while|whereas|but|so that|as it|"
    r"as they|as he|as she) .*|[-\u2013\u2014] .*)$",
    re.IGNORECASE,
)
#: "(was Robbie)", "(previously O2)": the value a note or a sentence replaced.
WAS = re.compile(r"\((?:was|previously|formerly|used to be)\s+(?P<o>[^)]+)\)", re.IGNORECASE)
_REPLACED = (
    re.compile(r"\binstead of (?:an? |the |my )?(?P<o>[^,;.!?]+)", re.IGNORECASE),
    re.compile(r"\brather than (?:an? |the |my )?(?P<o>[^,;.!?]+)", re.IGNORECASE),
    re.compile(r",\s*not (?:an? |the )?(?P<o>[^,;.!?]+)", re.IGNORECASE),
    re.compile(
        r"\b(?:no longer|don't|do not|doesn't|does not|won't)\s+(?:\w+\s+){0,2}?"
        r"(?:drink|eat|use|play|drive|live in|work at|work for|go to|go by)\s+(?:an? |the )?"
        r"(?P<o>[^,;.!?]+)",
        re.IGNORECASE,
    ),
    re.compile(r"\bfrom (?:being )?(?:an? )?(?P<o>[^,;.!?]+?) to\b", re.IGNORECASE),
    re.compile(
        r"\b(?:traded|swapped|exchanged|sold) (?:(?:my|the|our|an?) )?(?P<o>[\w -]+?) "
        r"(?:for|and)\b",
        re.I,
    ),
    re.compile(r"\bis no longer (?P<o>[^,;.!?]+)", re.IGNORECASE),
    # "Ramen has overtaken pizza as my favourite food"
    re.compile(
        r"\b(?:has overtaken|overtook|has replaced|replaced|took over from|has beaten) "
        r"(?:an? |the |my )?(?P<o>[^,;.!?]{1,40}?) as\b",
        re.IGNORECASE,
    ),
    WAS,
    # "Barclays out, Nationwide in", "Radiohead is out, Arctic Monkeys is in"
    re.compile(
        r"(?:^|[:;,.!?]\s*)(?P<o>[^,;:.!?]{1,40}?)\s+(?:is |are )?out\s*[,;/]\s*"
        r"[^,;:.!?]{1,40}?\s+(?:is |are )?in\b",
        re.IGNORECASE,
    ),
)


def norm(value: str) -> str:
    value = " ".join(value.split()).strip(" .,;:'\"!?")
    for _ in range(4):
        stripped = _TAIL.sub("", value).strip(" .,;:'\"!?")
        if stripped == value:
            break
        value = stripped
    value = re.sub(
        r"^(?:now |just |currently |an? |the |some |my |our |his |her |their |its )+",
        "",
        value,
        flags=re.I,
    )
    return value.lower().strip()


def replaced(text: str) -> frozenset[str]:
    return frozenset(
        v for pattern in _REPLACED for m in pattern.finditer(text) if (v := norm(m.group("o")))
    )


#: Words that drop a value in their clause: "I'm not on a Pixel 9 anymore", "Turquoise is
#: no longer my colour", "Out with Hanoi, in with Edinburgh", "I've gone off Taleggio".
#: "At the club I'm Bunny now, not Tink", "I said August 2 by mistake".
_DROPS = re.compile(
    r"\b(?:no longer|any ?more|gone off|moved on from|done with|over with|by mistake)"
    r"\b|^\s*(?:not|out with)\b",
    re.IGNORECASE,
)
#: The most words of one statement; a longer text is a chat message, which says many
#: things in passing ("going all out with a Harry Potter theme"): the value it drops, the
#: owner of a value placed first (``hmem.infer.subjects``) and the newest value of a
#: question (``hmem.recall.newest``) are read of statements only.
STATEMENT_WORDS = 25
_CLAUSE = re.compile(r"[;.!?]|,\s|\s[-\u2013\u2014]\s|\s(?:but|so|and)\s")


def dropped(text: str, value: str) -> bool:
    """Whether ``text`` drops ``value`` (a normalised value): it stands in a clause with
    a word that leaves it behind ("I'm not on a Pixel 9 anymore, I got a Galaxy S23"
    drops "pixel 9", not "galaxy s23")."""
    if len(value) < 3 or len(text.split()) > STATEMENT_WORDS:
        return False  # "so" is no value; a chat message drops things in passing
    named = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", re.IGNORECASE)
    return any(_DROPS.search(c) and named.search(c) for c in _CLAUSE.split(text))


#: A clause that states what holds now: "it's burgundy", "she's in Naples now", "cricket
#: is my sport now", "now it's Ruth".
_STATES = re.compile(
    r"^\s*(?:(?:but|and|so)\s+)?(?:(?:it|she|he|they|we)(?:'s|'re| is| are)\b|"
    r"i'm\b|i am\b|now\b|these days\b)|\b(?:now|these days|nowadays)\s*[.!]?\s*$",
    re.IGNORECASE,
)


def then_states(text: str) -> bool:
    """Whether ``text`` ends or drops something in one clause and then says what holds
    now in a later one ("Dune is no longer my top book; it's Piranesi", "My sister no
    longer lives in Seville; she's in Naples now"): a change, not only an ending."""
    clauses = [c for c in _CLAUSE.split(text) if c.strip()]
    return any(
        _DROPS.search(c) or re.search(r"\b(?:stopped|quit|left|gave up|sold)\b", c, re.I)
        for c in clauses[:-1]
    ) and any(_STATES.search(c) for c in clauses[1:])


_FROM_TO = re.compile(r"^from (?:being )?(?:an? |the )?(?P<o>.+?) to (?:an? |the )?(?P<v>.+)$")


def to_value(value: str) -> str:
    """A value read as "from X to Y" ("I've switched from volleyball to cricket") is Y."""
    m = _FROM_TO.match(value)
    return m.group("v") if m else value


_SLIP = (
    r"i meant(?! to\b)|i misspoke|my (?:mistake|bad)|mistyped|typo|"
    r"(?:typed|spel(?:led|t)) (?:that|it|my \w+) wrong|"
    r"got (?:that|it) wrong|had (?:that|it) (?:slightly )?(?:off|wrong)|"
    r"correct(?:ion| that| myself)|scratch that|ignore (?:that|my last)|not what i meant|"
    r"(?:i )?(?:said|gave you|told you) the wrong|was a slip|slip of the (?:tongue|keyboard)|"
    r"fingers? slipped|autocorrect(?:ed)?|wait,? no|no,? wait|oops(?=.{0,60}?\bnot\b)"
)
#: Words that can only say the statement just before was a slip ("sorry, I meant teal",
#: "typo: teal", "scratch that, it's teal", "my bad, Teal"): a correction that names no
#: slot puts right the user's statement before it (``hmem.infer.write``).
SLIP = re.compile(rf"\b(?:{_SLIP})\b", re.IGNORECASE)
#: Words that say a statement corrects one before ("actually", "I mistyped", ", not May
#: 3"): ``hmem.infer.changes`` reads a correction by them.
CORRECTION = re.compile(
    rf"\b(?:actually|mistake|that was wrong|not true|to correct|wrongly|in fact|rather than|"
    rf"sorry,? (?:it's|it is)|"
    rf"misspel\w+|{_SLIP})\b|,\s*not\s+\w+",
    re.IGNORECASE,
)
#: How alike a corrected value and the one it corrects are (``difflib`` ratio): a slip of
#: a letter or a digit ("Sara" -> "Sarah", "March 3" -> "March 13", "19 Station Road" ->
#: "91 Station Road"), not another value ("Sara" -> "Sam").
NEAR_RATIO = 0.8
_TOKEN = re.compile(r"[\w'-]+(?:[@.][\w'-]+)*")  # "jo@gmail.com" is one


def corrected(text: str, value: str) -> str | None:
    """The words of ``text`` (a correction) that are ``value`` (a normalised value) with a
    slip put right: as many words, alike by ``NEAR_RATIO`` and not the same; or None."""
    if len(value) < 3 or len(text.split()) > STATEMENT_WORDS:
        return None
    words = _TOKEN.findall(text.lower())
    size = len(value.split())
    spans = {
        " ".join(words[i : i + n])
        for n in (size, size + 1, max(size - 1, 1))
        for i in range(len(words) - n + 1)
    }
    # not a part of the value ("march" of "march 3"): a slip put right, whole
    alike = [
        (SequenceMatcher(None, s, value).ratio(), s) for s in spans if f" {s} " not in f" {value} "
    ]
    best = max(alike, default=(0.0, ""))
    if best[0] < NEAR_RATIO:
        return None
    pairs = list(zip(best[1].split(), value.split(), strict=False))
    if len(best[1].split()) == size and any(
        a != b and SequenceMatcher(None, a, b).ratio() < 0.5 for a, b in pairs
    ):
        return None  # another word, not a slip in one ("the video game tournament")
    return best[1]
