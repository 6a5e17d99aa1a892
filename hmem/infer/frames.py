"""Same slot by the masked frame's embedding (issue 47): two statements of one subject
whose words name different slots ("I drink coffee every morning": ``drink``; "these days
I start my day with matcha": ``start``) are read as one slot when their frames, the
texts with the value masked ("I drink something every morning"), embed close enough.

Only where the words cannot tell: the subject must be the same by the words, both must
have a value, and not both slots may be named by frames of the data (then the words
say they differ: "I work at" is not "I work as", at cosine 0.83). The threshold
(``Config.infer_frame_cosine``) is set above the highest cosine of two slots the
development set knows apart (``python -m hmem_bench.updates --calibrate``); a closure it
decides says so in its cue ("drink: matcha (frame 0.86)").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from hmem.errors import HmemError
from hmem.infer.changes import Claim, Decision, decide, owner

__all__ = [
    "FrameEmbedder",
    "decide_by_frame",
    "frame_candidate",
    "frame_decisions",
    "frame_similar",
]


def frame_candidate(new: Claim, old: Claim) -> bool:
    """A pair the words cannot place in one slot and the masked frames' embedding may:
    the same subject, both with a value and a frame, other values, slot names that
    differ, not both named by frames of the data (the words then say they differ: "I
    work at" is not "I work as"), no addition, no ending on either side."""
    return (
        new.subject is not None
        and new.subject == old.subject
        and owner(new) is not None
        and new.slot is not None
        and old.slot is not None
        and new.slot != old.slot
        and not (new.known and old.known)
        and new.value is not None
        and old.value is not None
        and new.value != old.value
        and new.frame is not None
        and old.frame is not None
        and not new.added
        and new.ends is None
        and old.ends is None
    )


def decide_by_frame(new: Claim, old: Claim, cosine: float) -> Decision | None:
    """``decide`` with ``old`` read as filling ``new``'s slot (its masked frame said so,
    at ``cosine``): the cue says so, so a closure is explained by it."""
    decision = decide(new, replace(old, slot=new.slot))
    if decision is None or decision.op != "supersede":
        return None
    return Decision(decision.op, decision.reason, f"{decision.cue} (frame {cosine:.2f})")


#: An embedding function: texts -> one vector each.
FrameEmbedder = Callable[[list[str]], Sequence[Sequence[float]]]


def frame_similar(frames: FrameEmbedder, new: str, olds: Sequence[str]) -> list[float]:
    """Cosine of the masked frame ``new`` with each of ``olds`` (one embedding call)."""
    vectors = np.asarray(frames([new, *olds]), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    unit = vectors / norms[:, None]
    return [float(x) for x in unit[1:] @ unit[0]]


def frame_decisions(
    new: Claim,
    olds: Sequence[Claim],
    decisions: Sequence[Decision | None],
    frames: FrameEmbedder,
    threshold: float,
) -> list[Decision | None]:
    """Where the words left a neighbour alone because they name another slot, its
    masked frame may still say it is the same slot: at ``threshold`` or closer, it is
    decided as such (``changes.decide_by_frame``; the cue carries the cosine)."""
    out = list(decisions)
    todo = [
        i
        for i, (old, d) in enumerate(zip(olds, decisions, strict=True))
        if d is None and frame_candidate(new, old)
    ]
    if not todo or new.frame is None:
        return out
    try:
        cosines = frame_similar(frames, new.frame, [olds[i].frame or "" for i in todo])
    except HmemError:  # the embedder failed: the words' decisions stand
        return out
    for i, cosine in zip(todo, cosines, strict=True):
        if cosine >= threshold:
            out[i] = decide_by_frame(new, olds[i], cosine)
    return out
