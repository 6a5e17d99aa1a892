"""Numbers that changed: "coverage has recently improved to 78%" after "I've reached
65% coverage", "the new daily quota of 1,200 calls per day" after "1000 calls/day",
"the new sprint deadline of April 5" after "a deadline of April 1".

A text is read into ``Quantity`` mentions: a value (a number, a percentage, an amount
of money, a date), its unit (the noun it counts: "cards", "hours", "calls/day"), the
content words around it (what it measures), and whether the words say it changed (a
cue before it: "now", "new", "recently", "improved to", "increased", "reached", "a
total of"). A bigger count with no cue ("completed 15 problems" after "completed 12")
is not enough: it is as often another batch. ``changed_value`` compares a changed
mention of a new text with the mentions of a stored one: the same unit, what it
measures named near both, two shared words, another value.

Conservative like the rest of ``hmem.infer``: only a mention with a cue closes
anything; a goal, a wish or a condition ("to reach 90%", "if I add 5 cards", "my target
of 100%") is no change; code and formulas are not read; versions ("Bootstrap 5.3.0",
"v2.5") and bare years are no quantities.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Quantity", "change_sentences", "changed_value", "read_quantities"]

_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE = re.compile(rf"\b(?P<m>{_MONTHS})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b", re.I)
_NUM = re.compile(
    r"(?<![\w.,/$-])(?P<cur>\$)?(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
    r"(?P<suf>k\b|%|\s*percent\b|ms\b|s\b|gb\b|mb\b|kb\b)?(?![\w.]*\d)(?![/.]\d)",
    re.I,
)
_CODE = re.compile(r"```.*?(?:```|$)|`[^`]*`|\\\(.*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$", re.S)
_CLAUSE = re.compile(r"(?<=[.!?;])\s+|\s+-\s+|,\s+(?=but\b|so\b|and\s+i\b)", re.I)
_TOKEN = re.compile(r"[a-z][a-z'-]*|\d[\d,.]*%?", re.I)
# A cue in the words just before the value: it is the new value of something.
_CUE = re.compile(
    r"\b(?:now|new|newly|recently|improved|increased|decreased|reduced|dropped|grew|grown|"
    r"rose|risen|raised|reached|extended|updated|changed|upgraded|bumped|boosted|expanded|"
    r"lowered|shortened|moved|pushed|postponed|adjusted|revised|switched|went up|went down|"
    r"gone up|gone down|total of|climbed|fell|jumped|cut)\b",
    re.I,
)
# A value that is aimed at, wished for or supposed is no change.
_GOAL = re.compile(
    r"\b(?:if|to reach|to get|to hit|to achieve|to increase|to improve|to reduce|to raise|"
    r"to extend|goal|target|aim|aiming|want|wants|need|needs|plan|planning|hope|hoping|"
    r"should|would|could|might|maybe|whether|expect|expected|estimated|up to|at least|"
    r"at most|under|below|above|over|more than|less than|per cent of|out of)\b",
    re.I,
)
_STOP = frozenset(
    re.findall(
        r"\S+",
        "i me my mine we our you your he she his her they their it its the a an and or of in "
        "on at to for from with is am are was were be been being have has had do does did not "
        "no now also too very this that these those there here just so but as by which who "
        "what when where how can could would should will about into over after before than "
        "then some any each per i'm i've i'd it's that's total new recently currently already "
        "since up down",
    )
)
_UNITLESS = frozenset({"and", "or", "to", "of", "in", "on", "at", "for", "with", "by", "from"})
_UNIT_ALIAS = {"percent": "%", "per cent": "%", "k": "", "s": "second", "ms": "ms"}


@dataclass(frozen=True)
class Quantity:
    """One value a text states, what it counts and what it is about."""

    value: str  # normalised: "1200", "78", "04-05"
    kind: str  # "number", "%", "$", "date", or a unit suffix ("ms", "gb")
    unit: str | None  # the noun counted, singular ("card", "call/day"); None: bare
    near: frozenset[str]  # content words of its sentence, stemmed roughly
    surface: frozenset[str]  # the sentence's words as written (for a bare number's unit)
    sentence: str
    cue: str | None  # the words that say it changed
    goal: bool = False  # aimed at, wished, supposed, a past "from" value: not one held
    at: int = 0  # where the value starts in ``sentence`` (whose it is: ``owners``)


def _stem(word: str) -> str:
    word = re.sub(r"'s$", "", word.lower()).strip("'-")
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _singular(word: str) -> str:
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _unit_after(rest: str) -> str | None:
    """The noun a number counts: the last of up to three lower-case words right after
    it ("15 classification problems with" → problem), and a rate ("calls per day",
    "calls/day" → call/day)."""
    m = re.match(r"\s*((?:[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*)", rest)
    if m is None:
        return None
    words = m.group(1).split()
    kept: list[str] = []
    for word in words:
        if word in _UNITLESS or word in _STOP:
            break
        kept.append(word)
        if word.endswith("s") and not word.endswith("ss"):
            break  # the plural is the noun counted ("12 branches merged")
    if not kept:
        return None
    unit = _singular(kept[-1])
    after = rest[rest.lower().find(kept[-1]) + len(kept[-1]) :]
    rate = re.match(
        r"\s*(?:/|per\s+|an?\s+|each\s+)(second|minute|hour|day|week|month|year)\b", after
    )
    if rate:
        unit = f"{unit}/{rate.group(1)}"
    return unit


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _clauses(text: str) -> list[tuple[str, str]]:
    """(clause, its sentence) pairs of the text outside code."""
    return [
        (clause, sentence)
        for sentence in _SENTENCE.split(_CODE.sub(" ", text))
        for clause in _CLAUSE.split(sentence)
        if clause.strip()
    ]


# What a value measures is said near it: about twelve words before, six after.
_BEFORE, _AFTER = 90, 40
# Words of every other chat message: sharing them says nothing of what is measured.
_GENERIC = frozenset(
    _stem(w)
    for w in re.findall(
        r"\S+",
        "trying want make sure help need like know think get got use using used able managed "
        "work working worked start started project app application feature thing things "
        "way one still really much many more less also well good better best great time "
        "initial initially current currently first last next",
    )
)

#: The part of a long message read for numbers (a neighbour is read once per write).
MAX_CHARS = 6000


@functools.lru_cache(maxsize=4096)
def read_quantities(text: str) -> tuple[Quantity, ...]:
    """Every value the text states outside code, with its unit, words and cue."""
    text = text[:MAX_CHARS]
    out: list[Quantity] = []
    for clause, sentence in _clauses(text):
        offset = max(0, sentence.find(clause))
        spans: list[tuple[int, int, str, str, str | None]] = []
        for m in _DATE.finditer(clause):
            month = m.group("m").lower()[:3]
            head = re.search(
                r"\b([a-z]{4,})\s+(?:(?:is|was|of|on|for|set|to|moved|at|now|been|has)\s+){1,3}$",
                clause[max(0, m.start() - 40) : m.start()],
            )  # "a deadline of April 1": what the date is of; none, no measure
            unit = _singular(head.group(1)) if head and head.group(1) not in _STOP else None
            spans.append((m.start(), m.end(), f"{month}-{int(m.group('d')):02d}", "date", unit))
        for m in _NUM.finditer(clause):
            if any(s <= m.start() < e for s, e, *_ in spans):
                continue
            before = clause[max(0, m.start() - 12) : m.start()]
            if re.search(r"(?:\bv|[A-Z][\w-]*\s*)$", before) and not m.group("suf"):
                continue  # a version or a name's number ("Jest 29", "v2", "ES6")
            number = m.group("n").replace(",", "")
            if re.fullmatch(r"(?:19|20)\d\d", number) and not m.group("suf"):
                continue  # a year: the dates' business
            suffix = (m.group("suf") or "").strip().lower()
            kind = "$" if m.group("cur") else _UNIT_ALIAS.get(suffix, suffix) or "number"
            # the noun a number counts, or what a measure measures ("300ms debounce",
            # "95% success rate")
            unit = _unit_after(clause[m.end() :])
            if "." in number:
                number = number.rstrip("0").rstrip(".")
            spans.append((m.start(), m.end(), number, kind, unit))
        for start, end, value, kind, unit in spans:
            # whole words only: a cut word ("prac" of "practicing") matches nothing
            lo, hi = max(0, offset + start - _BEFORE), offset + end + _AFTER
            while lo > 0 and sentence[lo - 1].isalnum():
                lo -= 1
            while hi < len(sentence) and sentence[hi].isalnum():
                hi += 1
            around = sentence[lo:hi]
            tokens = _TOKEN.findall(around)
            near = (
                frozenset(_stem(t) for t in tokens if t.lower() not in _STOP and t[0].isalpha())
                - _GENERIC
            )
            lead = clause[max(0, start - 60) : start]
            lead = lead[lead.rfind(",") + 1 :] if kind != "date" else lead
            cue = _CUE.search(lead)
            if cue and re.search(r"\d", re.sub(r"\bfrom\s+\S+\s+to\s*$", "", lead[cue.end() :])):
                # a change word is the next value's ("my increased quiz score from 75% to
                # 92% after practicing 15 problems": the score changed, not the count);
                # only a "from X to" value may stand between it and its value
                cue = None
            if (
                cue
                and cue.group(0).lower() == "new"
                and re.search(r"\b(?:a|an|another|some)\s+(?:\w+\s+)?new\b", lead, re.I)
            ):
                cue = None  # "a new triangle with sides 10 cm" is another thing, not a value
            goal = (
                _GOAL.search(lead[-30:])
                # one of a list ("sides 9, 12, 15 cm"; "10 cm, 15 cm, and 20 cm") is no
                # single value of a measure
                or (
                    kind != "date"
                    and (
                        re.search(r"\d\s*[a-z%]{0,3},\s*(?:and\s+)?$", lead)
                        or re.match(r"\s*[a-z%]{0,3},\s*(?:and\s+|or\s+)?\$?\d", clause[end:])
                    )
                )
                or re.search(r"\bby(?:\s+about|\s+around|\s+roughly)?\s*$", lead)  # a delta
                or re.match(r"\s*(?:by|before|until)\b", clause[end:])
            )
            if re.search(r"\bfrom\s*$", lead) or re.search(r"\bfrom\s+\S+\s+to\s*$", lead):
                cue = cue if re.search(r"\bto\s*$", lead) else None  # "from 70% to 90%"
            # "improved from 65% to 82%": 65 is a past value, not one the text holds
            past = re.search(r"\bfrom\s*$", lead) is not None
            out.append(
                Quantity(
                    value=value,
                    kind=kind,
                    unit=unit,
                    near=near,
                    surface=frozenset(t.lower() for t in tokens),
                    sentence=sentence,
                    cue=None if goal or cue is None else cue.group(0).lower(),
                    goal=bool(goal) or past,
                    at=offset + start,
                )
            )
    return tuple(out)


def change_sentences(text: str, quantities: tuple[Quantity, ...]) -> list[str]:
    """The sentences of ``text`` whose numbers say they changed."""
    return list(dict.fromkeys(q.sentence for q in quantities if q.cue))


# Words both say of what the value measures ("dashboard API response time"), beside
# the unit: one shared word in passing ("app") is not the same measure.
_SHARED = 2


def _same_measure(new: Quantity, old: Quantity) -> bool:
    if new.kind != old.kind:
        return False
    if new.kind == "date" and new.unit is not None and old.unit is not None:
        # what a date is of may stand apart ("moved the deadline of the release to June
        # 30"): each one's noun said near the other will do
        if new.unit != old.unit and not (
            _stem(new.unit) in old.near and _stem(old.unit) in new.near
        ):
            return False
    elif new.unit is not None and old.unit is not None:
        if new.unit != old.unit:
            return False
    elif new.unit is None and old.unit is not None:
        if not ({old.unit, old.unit + "s"} & new.surface):
            return False  # "commits … reached 165": the bare number counts commits
    elif old.unit is None and new.unit is not None:
        if not ({new.unit, new.unit + "s"} & old.surface):
            return False
    elif new.kind == "number":
        return False  # two bare numbers: nothing says they count the same thing
    unit_words = {_stem(new.unit or ""), _stem(old.unit or ""), _stem((new.unit or "") + "s")}
    shared = (new.near & old.near) - unit_words
    return len(shared) >= _SHARED


def changed_value(
    new: tuple[Quantity, ...],
    old: tuple[Quantity, ...],
    same_owner: Callable[[Quantity, Quantity], bool] | None = None,
) -> str | None:
    """The cue when a changed mention of ``new`` gives another value of something
    ``old`` states (the same unit and a shared word of what it measures; with
    ``same_owner``, also of the same person); None when nothing changed, or when the
    stored text already states the new value."""
    for q in new:
        if not q.cue:
            continue  # a running count with no cue ("completed 15 problems") is not enough:
            # on the BEAM dev chats every such closure was of another batch of problems
        rivals = [
            o
            for o in old
            if not o.goal and _same_measure(q, o) and (same_owner is None or same_owner(q, o))
        ]
        if not rivals or any(o.value == q.value for o in rivals):
            continue
        what = q.unit or next((o.unit for o in rivals if o.unit), None) or q.kind
        return f"{what}: {rivals[0].value} -> {q.value} ({q.cue})"
    return None
