"""Words that say a value changed, began or ended, read alone (no slot): the change cue
("now", "these days", "switched", "typo", ...), the start cue ("bought", "joined",
"signed up", ...) and an ending that goes on to a beginning ("I left Siemens and joined
Spotify"). The read side weighs them (``hmem.recall.newest``); the cues themselves are
data (``data/slots.json`` ``change_cues``, ``start_cues``, ``end_cues``)."""

from __future__ import annotations

import re

from hmem.slots.frames import CHANGE, END, START
from hmem.slots.notes import as_sentence
from hmem.slots.values import then_states

__all__ = ["change_cue", "start_cue", "then_begins"]


def change_cue(text: str) -> str | None:
    m = CHANGE.search(as_sentence(text) or text)  # "GP -> Dr Okafor": "... is now ..."
    return m.group(0).lower() if m else None


_FOR = re.compile(r"\b(?:gave up|ditched|dropped|swapped|traded|sold)\s+(?:\S+\s+){1,4}?for\s+\S")


def then_begins(text: str) -> bool:
    """An ending that goes on to say what began or holds now ("I left Siemens and joined
    Spotify", "stopped going to Blade & Co and switched to Kutz", "gave up spin for
    CrossFit", "Dune is no longer my top book; it's Piranesi"): a new value, not only
    an ending."""
    end = END.search(text)
    if end is None:
        return False
    if then_states(text) or _FOR.search(text, end.start()):
        return True
    rest = text[end.end() :]
    begun = [m for m in START.finditer(rest) if not END.fullmatch(m.group(0))]
    return bool(begun) or CHANGE.search(rest) is not None


def start_cue(text: str) -> str | None:
    """Words that say a value began or another ended, which for a slot of one value
    means a change ("I bought a Subaru Outback", "I've joined a local bakery", "Said
    goodbye to the old machine, hello Razer Blade"); too common to close anything on the
    write side, so only the read side weighs them (``hmem.recall.newest``)."""
    m = START.search(text)
    return m.group(0).lower() if m else None
