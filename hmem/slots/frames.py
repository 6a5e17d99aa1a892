"""A statement read as subject + frame + value, from its words (no model; the read path
calls it on every candidate, cached), and where no frame of the data names the slot,
from spaCy's dependency parse (``hmem.slots.parsed``: "People know me as Zeno", "the
cheese I like most is brie"; cached per text, one parser pass per search).

The frame is the sentence with its value masked. Frames hmem knows by name fill the slots
of ``data/slots.json`` (name, favourite X, birthday, residence, employer, occupation, partner, a
count, ...), where several phrasings mean one slot ("call me Bo", "Bo is what I go by",
"my name has changed to Bo": ``name``). Any other statement is still read: "my/Mia's
<noun> is <value>" fills the slot <noun> ("Mia's office is in Rome": ``office``), and
"<subject> <verb> [<preposition>] <value>" the slot of its verb and preposition ("I
speak Spanish": ``speak``). So the slot table is data the reading fills, not the limit of
what can change.

Same slot: same subject and same slot. A slot is single-valued when the data says so
(name, favourite, home, ...) or the words carry a change cue ("now", "changed to",
"switched", "no longer", "actually", ...); otherwise values add up ("I speak Spanish",
"I also speak German") and only an ending closes one. A statement that names the value it
replaces ("instead of coffee", "I no longer drink coffee", "traded my Corolla for a
Tesla", "from Lisbon to Porto") replaces that value, whatever slot it was stated in.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hmem.slots.names import starts_with_a_name
from hmem.slots.notes import as_sentence
from hmem.slots.parses import parsed_reading, prime
from hmem.slots.tokens import GROUP, KIN_NAMES
from hmem.slots.values import SLIP, to_value
from hmem.slots.values import norm as _norm
from hmem.slots.values import replaced as _replaced

__all__ = ["CHANGE", "END", "START", "Reading", "read_slot", "read_slots"]

_DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "slots.json").read_text(encoding="utf-8")
)
SINGLE = frozenset(_DATA["single"])
MULTI = frozenset(_DATA["multi"])
PEOPLE = frozenset(_DATA["people"])
_NOUN_SLOT = {noun: slot for slot, nouns in _DATA["nouns"].items() for noun in nouns}
_KIND = {word: kind for kind, words in _DATA["kinds"].items() for word in words}
_COUNT_NOUN: dict[str, str] = {
    noun: slot for slot, nouns in _DATA["count_nouns"].items() for noun in nouns
}

_NUMBERS = {
    "no": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "1st": 1, "2nd": 2,
    "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10,
}  # fmt: skip

_CAP = r"[A-Z][\w'-]*"
_PLACEHOLDERS = {
    "{v}": r"(?P<v>[^,;:.!?]+)",
    "{name}": rf"(?-i:(?P<v>{_CAP}(?:\s+(?:(?:of|de|la|van|von)\s+)?{_CAP})*))",
    "{num}": r"(?P<v>\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r")",
    "{ord}": r"(?P<v>\d{1,3}(?:st|nd|rd|th)|"
    + "|".join(sorted(_ORDINALS, key=len, reverse=True))
    + r")",
    "{cn}": r"(?P<n>(?!(?:now|today|again|too|total|altogether|(?:year|month|week|day)s?)\b)"
    r"[a-z]+(?:[ -](?!(?:a|an|per|each|every|the|of|in|at|on|for|today|tonight|yesterday|now|"
    r"this|last|again)\b)[a-z]+)?)",
    "{n}": r"(?P<n>[a-z]+(?: (?!(?:rn|now|atm|currently|lately|these|at|is|forever|ever|for|in|"
    r"to)\b)[a-z]+)?)",
    "{who}": rf"(?P<who>\b(?:my|our|his|her|their|the user's|(?-i:{_CAP}'s))"
    r"(?:\s+(?P<rel>[a-z]+)'s)?)",
    "{diet}": r"(?P<v>" + "|".join(map(re.escape, _DATA["diets"])) + r")",
    "{pet}": r"(?P<n>" + "|".join(map(re.escape, _DATA["pets"])) + r")",
}


def _compile(pattern: str) -> re.Pattern[str]:
    for key, value in _PLACEHOLDERS.items():
        pattern = pattern.replace(key, value, 1)
    return re.compile(pattern, re.IGNORECASE)


#: Frames whose own words say the subject is the user ("call me", "I go by").
_FIRST_PERSON = re.compile(r"(?:^|[^\w])(?:I|I'm|I am|me|my)(?:[^\w]|$)")


def _frames() -> list[tuple[str, re.Pattern[str], bool, bool]]:
    """(slot, pattern, its own words name the user, the value comes first)."""
    frames = []
    for slot, patterns in _DATA["frames"].items():
        for pattern in patterns:
            literal = re.sub(r"\{\w+\}|\\b", " ", pattern)
            first = "{who}" not in pattern and _FIRST_PERSON.search(literal) is not None
            frames.append((slot, _compile(pattern), first, pattern.startswith("^{")))
    return frames


FRAMES = _frames()

CHANGE = re.compile(
    r"\b(?:" + "|".join(re.escape(c) for c in _DATA["change_cues"]) + r")\b", re.IGNORECASE
)
END = re.compile(r"\b(?:" + "|".join(_DATA["end_cues"]) + r")\b", re.IGNORECASE)
START = re.compile(r"\b(?:" + "|".join(_DATA["start_cues"]) + r")\b", re.IGNORECASE)
# "too" adds at its clause's end ("I play padel too"), not before a measure ("too many")
_ADDITION = re.compile(
    r"\b(?:(?<!do )(?<!so )(?<!should )(?<!you )too"
    r"(?=\s*(?:$|[.,;:!?)]|(?:now|and|but|these days)\b))|also|as well|another|in addition|"
    r"besides)\b",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:(?:actually|correction|update|so|well|oh|okay|ok|btw|hi|hello|hey|and|but|sorry|"
    r"lately|these days|nowadays|now|big news|news|good news|sad news)\b[,:!-]?\s*)+",
    re.IGNORECASE,
)
#: A greeting with the name of the one spoken to ("Hey Maria,", "Great news John!",
#: "Thanks Tim."): the name is whom the sentence addresses, not its subject.
_VOCATIVE = re.compile(
    r"^(?:(?:hi|hello|hey|thanks|thank you|congrats|congratulations|wow|yes|yeah|yep|"
    r"great news|good news|big news|sorry|dear|bye|welcome back|good to hear|nice|awesome|"
    r"great|oh)[,!]?\s+)+(?-i:[A-Z][\w'-]*)\s*[,!.]+\s*",
    re.IGNORECASE,
)
#: Words that are no value: a pronoun names no value ("Highly recommend it").
_PRONOUN_VALUES = frozenset(
    "it them that this these those you him her me us one something anything everything "  # noqa: SIM905
    "nothing someone anyone everyone there here".split()
)
#: The word before a frame that makes it the one spoken to's, not the speaker's ("you
#: mentioned your work at the shelter").
#: A frame whose verb belongs to a relative clause of a thing ("desserts that work for
#: everyone's diets"): the thing's, not the subject's.
_RELATIVE = re.compile(r"\b(?:that|which)\s+$", re.IGNORECASE)
_ADDRESSEE = re.compile(r"\b(?:your\s+(?:\w+\s+)?|you\s+|you're\s+|you've\s+)$", re.IGNORECASE)
_SUBJECT = re.compile(
    rf"^(?:(?P<i>I|I'm|I've|I'd|We|We're|We've|we|i)\b|(?P<my>[Mm]y|[Oo]ur|[Tt]he user's)\s+"
    rf"(?P<rel>[a-z]+)\b|(?P<owner>{_CAP})'s\s+(?P<orel>[a-z]+)\b|(?P<name>{_CAP}))"
)
_NOT_NAMES = frozenset(
    "the a an this that these those it he she they you there here what who when where "  # noqa: SIM905
    "why how please call everyone meet sorry lately home name nickname username oops typo "
    # interjections and sentence adverbs a chat turn starts with: no one's name
    "yes yeah yep yup nope no thanks thank wow oh hey hi hello okay ok well just really "
    "also still great nice cool awesome sure glad love haha lol honestly highly totally "
    "definitely absolutely exactly anyway congrats congratulations today tonight "
    # words that open a subordinate clause ("After losing my job, I ...")
    "after before since when while because if although though once until unless".split()
)


@dataclass(frozen=True)
class Reading:
    """One statement's slot as far as the words tell: whose (``subject``: "user",
    "mia", "user.sister"; None unknown), which slot, the value, whether the slot holds
    one value at a time, the change cue, whether it ends the slot's value ("no longer
    lives in Rome"), and the values it says it replaces."""

    subject: str | None = None
    slot: str | None = None
    value: str | None = None
    single: bool = False
    known: bool = False  # a frame of the data named the slot (not the generic reading)
    cue: str | None = None
    ends: bool = False
    added: bool = False
    replaced: frozenset[str] = field(default_factory=frozenset)
    parsed: bool = False  # a verb and its object the parse read, no frame of the data


_NOT_VERBS = frozenset(
    "is am are was were be been do did does and a an the some my our to not never "  # noqa: SIM905
    "i you he she it we they me him her us them this that there said told meant mean".split()
)
#: The cues that make a slot no frame of the data names single on their own ("I play
#: squash now instead"); "now", "new" alone do not ("I bought new running shoes",
#: "she is now ready to help others" replace nothing).
_STRONG = frozenset(
    {
        "switched",
        "switch to",
        "changed to",
        "has changed",
        "have changed",
        "no longer",
        "anymore",
        "any more",
        "instead",
        "from now on",
    }
)
#: Words of a statement the parse reads a verb's object of: longer ones tell a story.
SHORT_STATEMENT = 10
#: A value longer than this is a clause, not a value.
MAX_VALUE_WORDS = 4


def _short(value: str) -> bool:
    return 0 < len(_norm(value).split()) <= MAX_VALUE_WORDS


_FUNCTION = frozenset(
    "and or but now in at on with who that which to of for from has have is was had "  # noqa: SIM905
    "because since as so when while if though although".split()
)


def _singular(noun: str) -> str:
    words = noun.lower().split()
    while len(words) > 1 and words[-1] in _FUNCTION:
        words.pop()
    noun = " ".join(words)
    if noun in _COUNT_NOUN:
        return _COUNT_NOUN[noun]
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3:
        return noun[:-1]
    return noun


def _owner(who: str | None, rel: str | None, fallback: str | None) -> str | None:
    if not who:
        return fallback
    first = who.split()[0].lower()
    if first in ("my", "our", "the"):  # "the user's"
        base = "user"
    elif first in ("his", "her", "their"):
        if fallback is None or fallback == "user":
            return None
        base = fallback
    else:
        base = first.removesuffix("'s")
    if rel:
        return f"{base}.{rel.lower()}" if rel.lower() in PEOPLE else base
    return base


def _subject(text: str) -> str | None:
    m = _SUBJECT.match(_VOCATIVE.sub("", text))
    if m is None:
        return None
    if m.group("i"):
        return "user"
    if m.group("my"):
        rel = m.group("rel").lower()
        return f"user.{rel}" if rel in PEOPLE else "user"
    if m.group("owner"):
        rel = m.group("orel").lower()
        owner = m.group("owner").lower()
        if owner in _NOT_NAMES:
            return None  # "It's important": no one's
        return f"{owner}.{rel}" if rel in PEOPLE else owner
    name = m.group("name").lower()
    base = name.split("'")[0]
    if base in KIN_NAMES:
        return f"user.{base}"  # "Mum has moved", "Dad's car"
    if base in _NOT_NAMES or name in _NUMBERS:
        return None  # "It's", "How've"
    # "Cut down to two coffees a day": a verb, no name
    return name if "'" in name or starts_with_a_name(text) else None


def _generic(text: str, subject: str | None) -> tuple[str | None, str | None, str | None, bool]:
    """A statement no known frame names: "my/Mia's <noun> is <value>" (the noun is the
    slot) or "<subject> <verb> [<prep>] <value>" (the verb and preposition)."""
    m = re.search(
        rf"\b(?P<who>[Mm]y|[Oo]ur|[Tt]he user's|{_CAP}'s)\s+(?:(?:new|current|latest|usual)\s+)?"
        r"(?P<n>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|has changed to|changed to|has become|"
        r"(?:has )?changed(?= from ))\s+"
        r"(?:now\s+)?(?P<v>(?:[^,;.!?]|\.(?=\w))+)",  # a dot inside: "kim@newco.com"
        text,
    )
    if (
        m is not None
        and m.group("n").split()[-1] not in PEOPLE
        and _short(m.group("v"))
        and _norm(m.group("v")) not in _PRONOUN_VALUES
    ):
        noun = _singular(m.group("n"))
        whose = _owner(m.group("who"), None, subject)
        return whose, _NOUN_SLOT.get(noun, noun), _norm(m.group("v")), True
    m = re.match(
        r"^(?:I|We|I've|We've|[A-Z][\w'-]*)\s+(?:(?:also|now|just|still|really|often|"
        r"usually|currently|have|has|can|always|mostly|mainly|only|normally|generally|"
        r"typically|actually|finally|recently|sometimes)\s+)*(?P<verb>[a-z]+)\s+"
        r"(?:(?P<prep>in|at|for|to|with|on|about|of)\s+)?(?P<v>[^,;.!?]+)",
        text,
    )
    if m is not None and subject is not None and _short(m.group("v")):
        verb = m.group("verb")
        if verb in _NOT_VERBS or _norm(m.group("v")) in _PRONOUN_VALUES:
            return subject, None, None, False
        lemma = re.sub(r"(?:ing|ed|es|s)$", "", verb) if len(verb) > 4 else verb
        frame = f"{lemma} {m.group('prep')}" if m.group("prep") else lemma
        return subject, frame, _norm(m.group("v")), False
    return subject, None, None, False


#: Where a sentence or a clause with its own subject ends ("..., so we have two kids").
_SENTENCE_END = re.compile(r"[.!?;:]+\s+|,\s+(?:so|and|but)\s+(?=(?:I|[Ww]e|[Mm]y|[Oo]ur)\b)")


def _sentence_at(text: str, at: int) -> str:
    """The sentence of ``text`` that holds the position ``at``."""
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
    return text[start:]


#: "I" or "we" just before a frame ("we finally moved to", "I've just joined"): its subject.
_I_BEFORE = re.compile(r"\b(?:I|we)(?:'m|'ve|'re|'d|'ll)?\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


def _clauses(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"[;:]\s+|[.!?]\s+(?=[A-Z])|,\s+(?:so|but)\s+", text)]
    return [_VOCATIVE.sub("", _LEAD.sub("", p)).strip() for p in parts if p.strip()]


def _framed(
    clause: str, subject: str | None, replaced: frozenset[str]
) -> tuple[str | None, str, str] | None:
    """The first known frame in ``clause`` whose value is not one the text replaces."""
    for slot, pattern, first, value_first in FRAMES:
        for m in pattern.finditer(clause):
            groups = m.groupdict()
            value = _norm(groups["v"])
            if not value or (value in replaced and slot not in ("count", "age")):
                continue
            if len(value.split()) > MAX_VALUE_WORDS or (
                value in _PRONOUN_VALUES and slot != "count"  # "one" is a number there
            ):
                continue  # a clause, not a value ("a mentorship program for LGBTQ youth")
            if not first and _RELATIVE.search(clause[: m.start()]):
                continue
            if not first and _ADDRESSEE.search(clause[: m.start()]):
                # "you mentioned your work at the shelter": the one spoken to's, not the
                # speaker's (a frame whose words name the user, "you call me Bo", is his)
                continue
            # whose: the subject of the sentence the frame is in ("Hey Maria, great to
            # chat. I lost my job at ...": the speaker's), else the text's
            sentence = _sentence_at(clause, m.start())
            local = _subject(_LEAD.sub("", sentence)) or subject
            if _I_BEFORE.search(clause, 0, m.start()):
                local = "user"  # "Work's been mad, but ... we finally moved to Leeds"
            if groups.get("who"):
                whose = _owner(groups["who"], groups.get("rel"), local)
            elif first and (value_first or local is None or local in GROUP):
                # "Friends call me Bo" (a group): a frame whose words name the user is his
                whose = "user"
            else:
                whose = local
            if whose is None and (
                slot in _DATA["speakers_own"]
                or _FIRST_PERSON.search(sentence)
                or (local is None and not starts_with_a_name(_LEAD.sub("", sentence)))
            ):
                # "Name's Jonah, by the way", "Moved to Bergen": the speaker's own
                whose = "user"
            if slot == "favourite":
                slot = f"favourite:{_singular(groups['n'])}"
            elif slot == "count":
                slot = f"count:{_singular(groups['n'])}"
                value = str(_NUMBERS.get(value, _ORDINALS.get(value, value)))
                value = re.sub(r"(?<=\d)(?:st|nd|rd|th)$", "", value)
                if whose in (None, "another", groups["n"].lower()):
                    whose = "user"  # "Country number 16 ticked off!": the speaker's count
            elif slot == "pet":
                slot = f"pet:{_singular(groups['n'])}"
            return whose, slot, value
    return None


@functools.lru_cache(maxsize=8192)
def _known_frame(text: str) -> tuple[str | None, tuple[str | None, str, str] | None]:
    """(the first subject, the first frame of the data the words hold) of a text."""
    replaced = _replaced(text)
    first_subject: str | None = None
    whole = _VOCATIVE.sub("", _LEAD.sub("", text)).strip()
    for clause in [whole, *_clauses(text)]:
        subject = _subject(clause)
        first_subject = first_subject or subject
        found = _framed(clause, subject or first_subject, replaced)
        if found is not None:
            return first_subject, found
    return first_subject, None


def read_slots(texts: Sequence[str], parse: bool = True) -> list[Reading]:
    """``read_slot`` of each text, the parse of those that need one in one pass."""
    normal = [" ".join(t.split()) for t in texts]
    prime([t for t in normal if parse and _known_frame(t)[1] is None])
    return [read_slot(t, parse) for t in normal]


@functools.lru_cache(maxsize=8192)
def read_slot(text: str, parse: bool = True) -> Reading:
    """Subject, slot, value, single-valuedness, cues; ``parse=False``: words alone. A
    note ("car: VW Golf") reads as its sentence ("my car is VW Golf")."""
    text = " ".join(text.split())
    text = as_sentence(text) or text
    cue_m = CHANGE.search(text)
    end_m = END.search(text)
    replaced = _replaced(text)
    first_subject, found = _known_frame(text)
    known = found is not None
    parsed, by_parse = parsed_reading(text) if found is None and parse else None, False
    if parsed is not None and parsed.known and _norm(parsed.value):
        found, known = (parsed.subject or first_subject, parsed.slot, _norm(parsed.value)), True
        replaced |= {r for r in map(_norm, parsed.replaced) if r}
    if found is None:
        by_noun = False
        for clause in _clauses(text) or [text]:
            whose, slot, value, by_noun = _generic(clause, _subject(clause) or first_subject)
            if slot is not None and value:
                found = (whose, slot, value)
                break
        if (
            parsed is not None
            and _norm(parsed.value)
            and (parsed.rank > 0 or (not by_noun and len(text.split()) <= SHORT_STATEMENT))
        ):
            # the parse's switch ("gave the cello away and switched to the drums"), or a
            # short statement's verb and object ("I play the cello in a small band")
            by_parse = found is None  # no reading of the words': the parse's own
            found = (parsed.subject, parsed.slot, _norm(parsed.value))
            replaced |= {r for r in map(_norm, parsed.replaced) if r}
    slip = SLIP.search(text) if found is not None else None
    if found is not None and slip is not None and found[1] in slip.group(0).lower().split():
        found = None  # "sorry, I meant teal", "typo: teal": a slip's words name no slot
    if found is None:
        return Reading(subject=first_subject, cue=cue_m.group(0) if cue_m else None,
                       ends=end_m is not None, replaced=replaced)  # fmt: skip
    whose, slot, value = found
    value = to_value(value)
    if slot.startswith("favourite:"):
        slot = "favourite:" + _KIND.get(slot[10:], slot[10:])  # a film is a movie
    kind = slot.split(":")[0]
    known = known and kind not in ("",)
    cue = cue_m.group(0).lower() if cue_m else None
    ends = end_m is not None and not (replaced and value not in replaced)
    ends = ends and _ends_value(text, end_m, value) if end_m is not None else False
    strong = cue is not None and (known or any(c in _STRONG for c in _cues(text)))
    single = (kind in SINGLE or strong) and kind not in MULTI
    single = single and not (kind == "name" and "." in (whose or "") and not cue)  # 2 sisters?
    return Reading(
        subject=whose,
        slot=slot,
        known=known,
        value=value,
        single=single,
        cue=cue,
        ends=ends,
        added=_ADDITION.search(text) is not None and kind != "count",  # a count is a total
        replaced=replaced - {value},
        parsed=by_parse,
    )


def _ends_value(text: str, end: re.Match[str], value: str) -> bool:
    """The ending is of the value itself ("Mia no longer lives in Rome"), not of another
    value the sentence replaces ("I switched to tea; I no longer drink coffee")."""
    # its own clause ("Bo and I are no longer together"; not "I left; I live in Graz")
    cut = r"[;.!?]|,\s|\s(?:but|so)\s"
    before = re.split(cut, text[: end.start()])[-1]
    after = re.split(cut, text[end.start() :], maxsplit=1)[0]
    return value in (before + after).lower()


def _cues(text: str) -> list[str]:
    return [m.group(0).lower() for m in CHANGE.finditer(text)]
