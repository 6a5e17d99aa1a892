"""A note: the way people jot a value down, a key, a colon and the value ("car: VW Golf",
"new bank: Starling", "Heads-up, new home city: Ghent", "GP -> Dr Okafor"). In a user's
memory it is the user's own, and it says what "my <key> is <value>" says; ``as_sentence``
gives that sentence, for the frames to read as any other (``hmem.slots.frames``). An
arrow, "(was X)", "X → Y" and "X out, Y in" say the value is new, and which it replaced
("nickname → Tash (was Robbie)": "my nickname is now Tash instead of Robbie").

Not a note: a lead-in and then a sentence ("Quick update: my barber is Tony now"), a key
that is a clause ("We got a new boss: Björn"), a value that is one ("car: I sold it").
"""

from __future__ import annotations

import re

from hmem.slots.values import WAS

__all__ = ["as_sentence"]

# a lead-in before the note: "Heads-up, ", "fyi - ", "Quick update: "
_LEAD_IN = re.compile(
    r"^(?:(?:heads[- ]up|fyi|btw|ps|note|update|quick update|small update|ok|okay|so|"
    r"and|also|oh|right)\b[,:!.\s-]*)+",
    re.IGNORECASE,
)
_NOTE = re.compile(
    r"^(?P<new>(?:(?:new|current|updated|latest)\s+)?)(?:my\s+|our\s+)?"
    r"(?P<key>[a-z][a-z'-]*(?:\s[a-z][a-z'-]*){0,3}?)(?:\s+(?:alert|update))?"
    r"(?:\s*(?::|=|->|→|—|–)|\s+-)\s*"
    # a dot inside a value is part of it ("kestrel.codes", "jo@mail.com")
    r"(?P<value>(?:[^.;!?]|\.(?=\w))+)(?P<rest>.*)$",
    re.IGNORECASE,
)
#: Words no key holds (a key names a thing, it says nothing of anyone).
_NOT_KEYS = frozenset(
    (  # noqa: SIM905
        "i i'm i've we we're we've you he she they it is are was were be been has have had "
        "do does did got get went go the a an this that these those some update news "
        "heads-up fyi btw ps note reminder correction"
    ).split()
)
#: Words that make the value a sentence, not a value.
_SENTENCE = frozenset(
    (  # noqa: SIM905
        "i i'm i've i'd we we're we've you he she they is are was were am has have had "
        "do does did my our his her their left quit joined moved switched"
    ).split()
)
#: A value longer than this many words is no value.
NOTE_VALUE_WORDS = 6
_WORD = re.compile(r"[\w'-]+")


def as_sentence(text: str) -> str | None:
    """ "my <key> is <value>" (with "now" when the note says the value is new: "new
    bank: Starling" -> "my bank is now Starling") when ``text`` is a note, else None."""
    stripped = _LEAD_IN.sub("", text.strip())
    m = _NOTE.match(stripped)
    if m is None:
        return None
    key = m.group("key").lower()
    value, old = _changed(m.group("value").strip())
    words = [w.lower() for w in _WORD.findall(value)]
    if (
        not words
        or len(words) > NOTE_VALUE_WORDS
        or any(w in _NOT_KEYS for w in key.split())
        or any(w in _SENTENCE for w in words)
    ):
        return None
    arrow = re.search(r"->|→", m.group(0)[: m.start("value")]) is not None
    new = m.group("new") or arrow or old
    now = " now" if new and "now" not in words else ""
    instead = f" instead of {old}" if old else ""
    return f"my {key} is{now} {value}{instead}{m.group('rest')}"


_ARROW = re.compile(r"^(?P<old>[^→>]+?)\s*(?:->|→)\s*(?P<new>[^→>]+)$")
_OUT_IN = re.compile(r"^(?P<old>.+?)\s+out\s*[,;/]\s*(?P<new>.+?)\s+in$", re.I)


def _changed(value: str) -> tuple[str, str | None]:
    """A note's value and the one it replaced: "Tash (was Robbie)", "Bristol → Utrecht",
    "EE out, Vodafone in"."""
    was = WAS.search(value)
    if was is not None and not value[was.end() :].strip():
        return value[: was.start()].strip(), was.group("o").strip()
    for pattern in (_ARROW, _OUT_IN):
        m = pattern.search(value)
        if m is not None:
            return m.group("new").strip(), m.group("old").strip()
    return value, None
