"""Comparing two readings (``hmem.slots.frames``): the same slot, rival values of one
single-valued slot, and the masked frame (the statement with its value masked)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hmem.slots.frames import Reading, read_slot

__all__ = [
    "FRAME_MASK",
    "ended_by",
    "masked_frame",
    "rivals",
    "same_slot",
    "states_newer_value",
]

_END_CUES = json.loads((Path(__file__).parent / "data" / "slots.json").read_text(encoding="utf-8"))[
    "end_cues"
]
_END = re.compile(r"\b(?:" + "|".join(_END_CUES) + r")\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[;.!?]|,\s|\s(?:but|so|and)\s")


def ended_by(text: str, value: str) -> bool:
    """Whether ``text`` says ``value`` ended: an ending's cue in the clause that names
    it ("Sad news: Pickle died on Tuesday" ends "pickle"; "I quit Acme" ends "acme")."""
    for m in _END.finditer(text):
        before = _CLAUSE.split(text[: m.start()])[-1]
        after = _CLAUSE.split(text[m.start() :], maxsplit=1)[0]
        if re.search(rf"(?<!\w){re.escape(value)}(?!\w)", before + after, re.IGNORECASE):
            return True
    return False


def same_slot(a: Reading, b: Reading) -> bool:
    """Both fill the same slot of the same subject."""
    return (
        a.subject is not None and a.subject == b.subject and a.slot is not None and a.slot == b.slot
    )


def rivals(newer: Reading, older: Reading) -> bool:
    """Whether ``newer`` states another value of the single-valued slot ``older``
    fills (same subject), or names ``older``'s value as the one it replaces."""
    if newer.subject is None or newer.subject != older.subject or older.value is None:
        return False
    if older.value in newer.replaced:
        return True
    if older.ends and not newer.ends and same_slot(newer, older) and not newer.added:
        # "Brigid and I are no longer together", later "Hedda is my boyfriend now": the
        # new value ranks above the ending (a multi-valued slot's too: a new dog after
        # one died)
        return newer.value is not None and newer.value != older.value
    if newer.ends or older.ends or not same_slot(newer, older):
        return False
    if not (newer.single or older.single) or newer.added:
        return False
    return newer.value is not None and newer.value != older.value


def states_newer_value(old: str, rival: str) -> bool | None:
    """Whether the text ``rival`` states another value of the slot the text ``old``
    fills, for the same subject (or names ``old``'s value as replaced). None when the
    words of ``old`` name no slot: the reading cannot tell."""
    before = read_slot(old)
    if before.slot is None:
        return None
    return rivals(read_slot(rival), before)


#: What stands for the value in a masked frame ("I moved to something last month").
FRAME_MASK = "something"


def masked_frame(text: str, value: str | None) -> str | None:
    """The statement with its value masked: what is said about the value, not the value
    ("Now I mostly have green tea in the mornings" -> "Now I mostly have something in
    the mornings"). None when there is no value or the words do not hold it as such."""
    if not value:
        return None
    text = " ".join(text.split())
    m = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE)
    if m is None:
        return None
    return text[: m.start()] + FRAME_MASK + text[m.end() :]
