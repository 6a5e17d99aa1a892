"""Changes from the words, without a model: does a new sentence replace, refine,
correct or end a stored fact, confirm it, or leave it alone?

Each sentence is read into a ``Claim``: whose it is (the subject: the user, "tom",
"user.sister", …), which slot it fills (where they live, who employs them, how many
kids they have, …; the ``SLOTS`` table), the value, and its cues (an addition: "too",
"also"; a correction: "actually"; an ending: "passed away", "broke up", "quit").
``decide`` compares a new claim with a stored one, then the seed-002 table maps the
relation to the operation (``hmem.extract.relations.POLICY``; an ending closes with no
new value, reason ``ended``). Conservative by design: another subject, an addition, a
slot the words do not name, or a pronoun whose owner is unknown closes nothing.

The subject comes from spaCy's dependency parse (the trained English pipeline, when
installed; ``parser_pipeline``); the slots and cues are patterns over the text and
spaCy's lemmas.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, field

from hmem.infer.subjects import clause_of, not_a_person, subject_from_parse, subject_from_words
from hmem.models import SupersedeReason
from hmem.slots import Reading, masked_frame, parser_pipeline, read_slot
from hmem.slots.parses import prime
from hmem.slots.values import CORRECTION as _CORRECT
from hmem.slots.values import corrected, dropped
from hmem.slots.whose import SPEAKER as _SPEAKER
from hmem.slots.whose import other_people, other_speakers, whose

__all__ = [
    "SLOTS", "SLOT_WORDS", "Claim", "Decision", "decide", "owner",
    "parser_pipeline", "read_claims", "slot_words",
]  # fmt: skip

_WORD = r"[A-Z][\w&'-]*"
_NAME = rf"(?P<v>(?:the\s+)?{_WORD}(?:\s+(?:(?:of|de|la|and)\s+)?{_WORD})*)\b"
_NUMBER = (
    r"(?P<v>\d+|no|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"a couple of)"
)

#: slot → (patterns whose group ``v`` is the value, single-valued?). A single-valued
#: slot holds one value at a time: a new value replaces the old one.
SLOTS: dict[str, tuple[tuple[str, ...], bool]] = {
    "residence": (
        (
            rf"\b(?:live|lives|living|lived|reside[sd]?|residing|settled|based|staying)\s+"
            rf"(?:now\s+)?in\s+{_NAME}",
            rf"\b(?:move|moves|moved|moving|relocated?|relocating|emigrated|went back)\s+"
            rf"(?:\w+\s+){{0,6}}?to\s+{_NAME}",
            rf"\bhome\s+(?:is|is now)\s+(?:in\s+)?{_NAME}",
        ),
        True,
    ),
    "employer": (
        (
            rf"\b(?:work|works|working|worked)\s+(?:now\s+)?(?:at|for)\s+{_NAME}",
            rf"\b(?:job|position|role|internship)\s+(?:\w+\s+){{0,3}}?(?:at|with)\s+{_NAME}",
            rf"\b(?:joined|join|joining|hired by|employed by|employed at|started at)\s+{_NAME}",
            rf"\b(?:started|starting|began)\s+(?:\w+\s+){{0,4}}?at\s+{_NAME}",
        ),
        True,
    ),
    "occupation": (
        (
            r"\b(?:work|works|working|worked|job)\s+as\s+(?:an?\s+)?(?P<v>[a-z]+"
            r"(?:\s+(?!(?:to|for|at|in|and|with|but|since|from|the|an?|of|on|until|before|"
            r"after|when|who|which|that|yesterday|today|now|last|recently)\b)[a-z]+)?)",
        ),
        True,
    ),
    "partner": (
        (
            rf"\b(?:dating|married to|engaged to|seeing|in a relationship with|going out with)"
            rf"\s+{_NAME}",
            rf"\b(?:girlfriend|boyfriend|partner|wife|husband|fianc[ée]e?)(?:'s name)?\s*"
            rf"(?:is|,|named|called)\s+{_NAME}",
        ),
        True,
    ),
    "diet": (
        (
            r"\b(?:am|is|are|'m|became|become|went|gone|now)\s+(?:a\s+)?(?:fully\s+)?"
            r"(?P<v>vegetarian|vegan|pescatarian|carnivore|omnivore|keto|gluten-free)",
        ),
        True,
    ),
    "age": (
        (
            r"\b(?:am|is|'m|'s|turned)\s+(?P<v>\d{1,3})\s+years?\s+old\b",
            r"\bturned\s+(?P<v>\d{1,3})\b",
            r"(?:^|\bI am|\bI'm)\s+(?P<v>\d{1,3})\s*[.!]?$",
        ),
        True,
    ),
    "count": ((rf"\b(?:have|has|'ve|got|own|owns)\s+(?:now\s+)?{_NUMBER}\s+(?P<n>[a-z]+)",), True),
    "favourite": (
        (r"\bfavou?rite\s+(?P<n>[a-z]+(?:\s+[a-z]+)?)\s+is\s+(?:now\s+)?(?P<v>[\w' -]+)",),
        True,
    ),
    "car": (
        (r"\b(?:drive|drives|driving)\s+(?:an?\s+)?(?P<v>[A-Z][\w-]+(?:\s+[A-Z0-9][\w-]*)*)",),
        True,
    ),
}

#: Words that state each slot: a text that fills a slot also asks the full-text index
#: for them, so "I started a job at Stripe" finds "I work at Google" with no vector.
SLOT_WORDS = {
    "residence": ("live", "lives", "moved", "home", "based"),
    "employer": ("work", "works", "job", "joined", "employed"),
    "occupation": ("work", "works", "job"),
    "partner": ("dating", "married", "girlfriend", "boyfriend", "partner", "wife", "husband"),
    "diet": ("vegetarian", "vegan", "pescatarian", "meat"),
    "age": ("years", "old", "age"),
    "car": ("drive", "car"),
}

_ADD = re.compile(
    r"\b(?:(?<!do )(?<!so )(?<!should )(?<!you )too|also|as well|another|in addition|"
    r"additionally|second|both|"
    r"besides|as a side|on the side|added)\b",
    re.IGNORECASE,
)
_END = re.compile(
    r"(?<!\\)\b(?:pass(?:ed)? away|died|dies|put down|broke up|break up|split up|divorced|"
    r"call(?:ed|ing)? it quits|"
    r"quit|resigned|left|retired|no longer|not anymore|n't \w+ anymore|stopped|gave up|"
    r"ended(?! up\b)|sold|put \w+ down|"
    r"(?<!being )(?<!get )(?<!got )(?<!feel )(?<!felt )lost(?! in\b)|moved out|"
    r"got fired|was fired|laid off|graduated)\b",
    re.IGNORECASE,
)
_NOW = re.compile(r"\b(?:now|currently|these days|nowadays|new)\b", re.IGNORECASE)
_STOP = frozenset(
    re.findall(
        r"\w+",
        "i me my mine we our you your he she his her they their it its the a an and or of "
        "in on at to for from with is am are was were be been being have has had do does "
        "did not no now also too very this that these those there here just so but as by",
    )
)
_NUMBERS = {
    "no": 0, "zero": 0, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "a couple of": 2,
}  # fmt: skip
# An ending said not to happen: "won't quit", "don't ever quit", "never left", "didn't sell".
_NEGATED = re.compile(
    r"\b(?:not|never|won't|wont|don't|dont|doesn't|didn't|can't|cannot|couldn't|wouldn't|"
    r"shouldn't|mustn't)\s+(?:ever\s+|even\s+|really\s+|just\s+)?$",
    re.IGNORECASE,
)
#: Endings of the subject itself ("Rex passed away"), not of something it had ("John lost
#: his job"): only these end a stored fact whose value the subject is.
_SELF_END = re.compile(r"^(?:pass(?:ed)? away|died|dies|put down)$", re.IGNORECASE)


def _names(value: str, text: str) -> bool:
    """``value`` occurs in ``text`` as whole words ("it" is not in "quit")."""
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE) is not None


# "Mia and I broke up": the user's.
_AND_I = re.compile(r"^(?:\w+[,:]?\s+)?[A-Z][\w'-]*\s+and\s+I\b")


@dataclass(frozen=True)
class Claim:
    """What one sentence states, as far as the rules can tell."""

    text: str
    subject: str | None  # "user", "maya", "user.sister", "tom.sister"; None: unknown
    slot: str | None = None
    value: str | None = None
    added: bool = False  # "too", "also": alongside, not instead
    corrects: str | None = None  # the cue of a correction
    ends: str | None = None  # the cue of an ending
    ended: str = ""  # the clause of the ending ("Jon lost his job"): what it names ended
    now: bool = False
    words: frozenset[str] = field(default_factory=frozenset)
    single: bool = False  # the slot holds one value at a time (hmem.slots)
    known: bool = False  # a frame of hmem.slots' data named the slot
    replaced: frozenset[str] = field(default_factory=frozenset)  # values it says it replaces
    frame: str | None = None  # the text with its value masked (hmem.slots.masked_frame)


@dataclass(frozen=True)
class Decision:
    """``supersede`` (with ``reason``) or ``noop`` (the stored fact says the same)."""

    op: str
    reason: SupersedeReason | None
    cue: str


@functools.lru_cache(maxsize=4096)  # the read path asks it of the same texts again
def _slot(text: str) -> tuple[str | None, str | None]:
    for slot, (patterns, _) in SLOTS.items():
        for pattern in patterns:
            m = re.search(pattern, text, flags=0 if "[A-Z]" in pattern else re.IGNORECASE)
            if m is None:
                continue
            value = " ".join(m.group("v").split()).strip(" .,;'").lower()
            value = value.removeprefix("the ")
            if slot == "count":
                noun = m.group("n").lower()
                if noun.endswith("s") and len(noun) > 3:
                    noun = noun[:-1]
                return f"count:{noun}", str(_NUMBERS.get(value, value))
            if slot == "favourite":
                return f"favourite:{m.group('n').lower()}", value
            return slot, value
    return None, None


def _words(text: str) -> frozenset[str]:
    tokens = re.findall(r"[a-z][a-z'-]+", text.lower())
    return frozenset(t.rstrip("'s") for t in tokens if t not in _STOP and len(t) > 2)


# Claims of texts read lately: a write's neighbours are mostly the last writes'
# neighbours, so each stored fact is parsed about once, not once per write.
_CACHE: dict[str, Claim] = {}
_CACHE_SIZE = 4096
_cache_lock = threading.Lock()
# A parse reads the start of a long text only: the subject comes first, and a chat
# message of thousands of characters costs the parser ~100 times a fact's time.
PARSE_CHARS = 400


def read_claims(texts: list[str]) -> list[Claim]:
    """Each text's claim: the subject from the parse (or the words), the slot and value
    from ``SLOTS``, the cues."""
    with _cache_lock:
        known = {t: _CACHE[t] for t in texts if t in _CACHE}
    fresh = list(dict.fromkeys(t for t in texts if t not in known))
    if fresh:
        made = dict(zip(fresh, _read(fresh), strict=True))
        with _cache_lock:
            for text, claim in made.items():
                if len(_CACHE) >= _CACHE_SIZE:
                    _CACHE.pop(next(iter(_CACHE)))
                _CACHE[text] = claim
        known.update(made)
    return [known[t] for t in texts]


#: A label before the statement ("Sad news: ...", "Update: ..."): no one's name.
_LABEL = re.compile(r"^(?:\w+\s+){0,2}\w+:\s+")


def _read(originals: list[str]) -> list[Claim]:
    speakers = [_SPEAKER.match(t) for t in originals]
    texts = [t[m.end() :] if m else t for t, m in zip(originals, speakers, strict=True)]
    nlp = parser_pipeline()
    docs = (
        list(nlp.pipe(t[:PARSE_CHARS] for t in texts)) if nlp is not None else [None] * len(texts)
    )
    if nlp is not None:
        # the slot reading's parse (``hmem.slots.parsed``) is this one: no second pass
        short = [(" ".join(t.split()), d) for t, d in zip(texts, docs, strict=True)]
        short = [(t, d) for t, d in short if len(t) <= PARSE_CHARS and d is not None]
        prime([t for t, _ in short], [d for _, d in short if d is not None])
    out = []
    for original, speaker, text, doc in zip(originals, speakers, texts, docs, strict=True):
        subject = subject_from_parse(doc) if doc is not None else subject_from_words(text)
        if doc is not None and subject is None and not any(t.dep_ == "nsubj" for t in doc):
            subject = subject_from_words(text)
        if subject is None and (label := _LABEL.match(text)) is not None:
            subject = subject_from_words(text[label.end() :])  # "Sad news: Rex died"
        lemmas = (
            frozenset(t.lemma_.lower() for t in doc if t.is_alpha and not t.is_stop)
            if doc is not None
            else _words(text)
        )
        reading = read_slot(text)
        slot, value, single, known = _slot_of(text, reading)
        if known and reading.subject is not None:
            subject = reading.subject  # "Teal is my favourite colour": the frame says whose
        elif subject is not None and not_a_person(subject, text):
            subject = "user"  # "Bilbao is where I live now", "The user now supports Ajax"
        if subject is not None and not subject.startswith("user") and _AND_I.match(text):
            subject = "user"
        if speaker is not None and subject is not None and subject.split(".")[0] == "user":
            subject = speaker.group("who").lower() + subject[len("user") :]
        corrects = _CORRECT.search(text)
        if corrects is not None and corrects.group(0).startswith(",") and _NOW.search(text):
            # "I'm Paloma now, not my old name": a change (the old value was true), not a
            # correction (it never was)
            corrects = None
        ends = _END.search(text)
        if ends is not None and _NEGATED.search(text[: ends.start()]):
            ends = None  # "we won't quit", "don't ever quit on what you love": nothing ended
        if ends is not None and doc is not None and " " not in ends.group(0).strip():
            # "left" or "sold" must be the verb ("my left knee", "the sold-out show" end
            # nothing)
            span = doc.char_span(ends.start(), ends.end(), alignment_mode="expand")
            if span is None or not any(t.pos_ in ("VERB", "AUX") for t in span):
                ends = None
        out.append(
            Claim(
                ended=clause_of(text, ends.start(), ends.end()) if ends else "",
                text=original,
                subject=subject,
                slot=slot,
                value=value,
                added=_added(text, slot),
                corrects=corrects.group(0).strip(", ") if corrects else None,
                ends=ends.group(0) if ends else None,
                now=_NOW.search(text) is not None,
                words=lemmas | _words(text),
                single=single,
                known=known,
                replaced=reading.replaced,
                # a verb and object only the parse read is compared by its words, not by
                # its masked frame ("Maya has a something" ~ "Maya drives a something")
                frame=None if reading.parsed and not known else masked_frame(text, value),
            )
        )
    return out


def _added(text: str, slot: str | None) -> bool:
    """ "too", "also", "another": alongside, not instead; "second" is a count's ordinal
    ("our second baby was born": the count is two), nor "another" before a total
    ("another cat, so that's three now"), no addition."""
    found = [m.group(0).lower() for m in _ADD.finditer(text)]
    if slot is not None and slot.startswith("count:"):
        found = [w for w in found if w not in ("second", "another")]
    return bool(found)


def _slot_of(text: str, reading: Reading) -> tuple[str | None, str | None, bool, bool]:
    """(slot, value, single-valued, named by a known frame): the frame reading of
    ``hmem.slots`` first, then this module's table (``SLOTS``), then the generic frame."""
    if reading.known and reading.slot is not None:
        return reading.slot, reading.value, reading.single, True
    slot, value = _slot(text)
    if slot is not None:
        return slot, value, SLOTS[slot.split(":")[0]][1], True
    return reading.slot, reading.value, reading.single, False


def slot_words(claim: Claim) -> list[str]:
    """The words of the claim's slot (and of the slot an ending names) for the
    full-text neighbours; a count's noun, a favourite's kind."""
    slots = {claim.slot.split(":")[0]} if claim.slot else set()
    if claim.ends:
        slots |= {_ENDED_SLOT[w] for w in claim.words if w in _ENDED_SLOT}
    words = [w for s in sorted(slots) for w in SLOT_WORDS.get(s, ())]
    if claim.slot and ":" in claim.slot:
        words.append(claim.slot.split(":", 1)[1])
    return words


def owner(claim: Claim) -> str | None:
    """Whose the claim is: "user", "maya" ("maya.sister" is Maya's); None: unknown."""
    if claim.subject is None or claim.subject.startswith("?"):
        return None
    return claim.subject.split(".")[0]


def _overlap(a: Claim, b: Claim) -> set[str]:
    """Content words both share (names, nouns): what an ending must name of the fact
    it ends ("Rex", "marathon", "Google")."""
    whose = {owner(a) or ""}  # the owner is no thing ended
    return set(a.words & b.words) - _WHEN - whose


_WHEN = frozenset(
    "user year week month day today now recently lately ago yesterday tonight last next "  # noqa: SIM905
    "soon just".split()
)


# An ending that names no value still names its slot: "I quit my job" ends the employer.
_ENDED_SLOT = {
    "job": "employer", "work": "employer", "company": "employer",
    "girlfriend": "partner", "boyfriend": "partner", "relationship": "partner",
    "wife": "partner", "husband": "partner", "partner": "partner", "car": "car",
    "phone": "phone",
}  # fmt: skip


def _ending(new: Claim, old: Claim) -> Decision | None:
    """``new`` says something ended ("passed away", "broke up", "quit"): it ends the
    stored fact of the same owner that names the same thing, never one of someone else."""
    assert new.ends is not None
    if old.ends is not None or owner(new) is None:
        return None
    if owner(new) != owner(old):
        # "Biscuit passed away" ends "I have a dog named Biscuit": the subject is the value
        # (a value a known frame read, a pet's or a person's name, and an ending of the
        # subject itself: "John lost his job" ends no "friend named John")
        by_name = new.subject is not None and new.subject.split()[-1] == old.value
        if (
            old.value
            and by_name
            and old.known
            and _SELF_END.match(new.ends.strip())
            and _names(old.value, new.ended)
        ):
            return Decision("supersede", SupersedeReason.ENDED, new.ends)
        return None
    if new.known and old.slot is not None and new.slot is not None and new.slot != old.slot:
        return None  # "Mia no longer lives in Rome" ends her home, not her office in Rome
    if new.slot is not None and new.slot == old.slot and new.subject == old.subject:
        if new.value == old.value or (old.value and _names(old.value, new.text)):
            return Decision("supersede", SupersedeReason.ENDED, new.ends)
        return None  # a new value of the slot: a change, decided by the caller
    if (
        new.subject == old.subject
        and old.slot is not None
        and any(_ENDED_SLOT.get(w) == old.slot for w in new.words)
    ):
        return Decision("supersede", SupersedeReason.ENDED, new.ends)
    if new.subject == old.subject and old.value and _names(old.value, new.ended):
        return Decision("supersede", SupersedeReason.ENDED, new.ends)  # "broke up with Alex"
    # what the ending's own clause names, not a word of the rest ("lost his job but
    # started a dance studio" ends no studio)
    shared = (_overlap(new, old) & _words(new.ended)) - _words(new.ends)
    named = old.words - {"user", "now", owner(old) or ""}
    # the ending must name much of what the stored fact is about (its pet's name and
    # kind, the marathon it trained for), not share a word in passing
    if shared and len(shared) >= 0.4 * len(named):
        return Decision("supersede", SupersedeReason.ENDED, new.ends)
    return None


def _replaces(new: Claim, old: Claim) -> Decision | None:
    """``new`` names ``old``'s value as the one it replaces ("instead of coffee", "I no
    longer drink coffee" beside "switched to tea", "traded my Corolla for", "from Lisbon
    to", ", not May 3"), for the same subject: whatever slot the old value was stated in."""
    if not old.value:
        return None
    if other_speakers(new.text, old.text):
        return None
    # "I'm not on a Pixel 9 anymore", "Turquoise is no longer my colour": the same person's
    # words, by any reading of their subject ("It's John, not Jon": the user's own)
    mine, theirs = whose(new.text), whose(old.text)
    mine, theirs = mine or ("user" if theirs == "user" else None), theirs or mine
    other = new.known and new.slot is not None and new.slot != old.slot  # her home, not office
    # or a correction names it with its slip put right ("Actually it's Sarah": "sara")
    same = mine is not None and mine == theirs and not other
    near = corrected(new.text, old.value) if same and new.corrects else None
    if same and (near or dropped(new.text, old.value)):
        ended = new.value in (None, old.value)
        why = SupersedeReason.ENDED if ended else SupersedeReason.CONTRADICTION
        why = SupersedeReason.USER_EDIT if new.corrects else why
        said = f"corrected: {old.value} -> {near}" if near else f"dropped: {old.value}"
        return Decision("supersede", why, said)
    if old.value not in new.replaced or new.value in (None, old.value) or not new.subject:
        return None
    if new.subject != old.subject:
        return None
    reason = SupersedeReason.USER_EDIT if new.corrects else SupersedeReason.CONTRADICTION
    said = f"{new.slot}: {new.value}"
    return Decision(
        "supersede", reason, said if new.slot == old.slot else f"{said} (was {old.value})"
    )


def decide(new: Claim, old: Claim) -> Decision | None:
    """What ``new`` does to the stored ``old``: None leaves it alone."""
    if other_people(new.text, old.text):
        return None  # "My little sister moved to Seville" is not the user's move
    if new.added and not new.corrects:
        return None  # "I started playing padel too": alongside, not instead
    if new.ends and old.ends:
        return None  # two endings: nothing stands to be closed or contradicted
    replaced = _replaces(new, old)
    if replaced is not None:
        return replaced
    if new.ends:
        ended = _ending(new, old)
        if ended is not None or new.slot is None or new.slot != old.slot:
            return ended
        if new.value and _names(new.value, new.ended):
            return None  # "I lost my job at Acme": Acme ended, it is no new value
    if new.subject is None or new.subject != old.subject or owner(new) is None:
        return None  # "Tom's sister moved to Madrid" changes nothing of the user's
    if new.slot is None or new.slot != old.slot:
        return None
    if not (new.single or old.single):
        return None  # values add up ("I speak Spanish", "I speak German")
    if new.value == old.value:
        return Decision("noop", None, f"{new.slot}: {new.value}")
    if new.corrects:
        return Decision("supersede", SupersedeReason.USER_EDIT, new.corrects)
    if old.value and new.value and old.value in new.value and len(new.value) > len(old.value):
        return Decision("supersede", SupersedeReason.REFINEMENT, f"{new.slot}: {new.value}")
    return Decision("supersede", SupersedeReason.CONTRADICTION, f"{new.slot}: {new.value}")
