"""Same slot by the masked frame's embedding (hmem.infer.frames), only where the words
cannot tell. The embedding function is a parameter: here a bag of words over the frame
(a real function, not a patch of hmem's), so the cosines are known."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hmem.infer.changes import read_claims
from hmem.infer.frames import frame_candidate, frame_decisions

_VOCAB = ["i", "drink", "have", "something", "every", "morning", "mornings", "now", "the", "in"]


def _bag(texts: list[str]) -> Sequence[Sequence[float]]:
    out = []
    for text in texts:
        words = text.lower().replace(".", "").split()
        out.append([float(words.count(w)) for w in _VOCAB] + [1e-3])
    return np.asarray(out).tolist()


def test_a_frame_close_enough_decides_the_same_slot_with_its_cosine_in_the_cue() -> None:
    new, old = read_claims(
        ["These days I sip matcha every morning.", "I drink coffee every morning."]
    )
    assert new.slot != old.slot and frame_candidate(new, old)
    [decided] = frame_decisions(new, [old], [None], _bag, 0.5)
    assert decided is not None and decided.op == "supersede" and "(frame " in decided.cue
    [left] = frame_decisions(new, [old], [None], _bag, 0.99)
    assert left is None  # below the threshold the words' decision stands


def test_no_candidate_where_the_words_tell() -> None:
    a, b = read_claims(["I work at Acme.", "I work as a nurse."])
    assert not frame_candidate(b, a)  # both named by frames of the data: two slots
    d, e = read_claims(["I drink coffee every morning.", "Mia drinks tea every morning."])
    assert not frame_candidate(e, d)  # another person
    assert frame_decisions(e, [d], [None], _bag, 0.0) == [None]
