"""Slot reading: which slot of whose a statement fills, with what value, and whether the
slot holds one value at a time. One owner below both the write path (``hmem.infer``:
does a new statement close a stored one?) and the read path (``hmem.recall``: which
open facts are rivals, the newest first?), so neither imports the other for it.

See ``hmem.slots.frames`` for the reading and ``hmem/slots/data/slots.json`` for the
data it fills slots with."""

from hmem.slots.compare import masked_frame, rivals, same_slot, states_newer_value
from hmem.slots.cues import change_cue, start_cue
from hmem.slots.frames import Reading, read_slot, read_slots
from hmem.slots.parse import parser_pipeline

__all__ = [
    "Reading",
    "change_cue",
    "masked_frame",
    "parser_pipeline",
    "read_slot",
    "read_slots",
    "rivals",
    "same_slot",
    "start_cue",
    "states_newer_value",
]
