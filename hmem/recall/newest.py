"""The newest value first when the slot reading cannot tell (issue 47, the read side's
fallback): among the best hits of a question, open statements of the user's own
(``hmem.slots.whose``) that answer it about as well as the best one (their dense
similarity to the question within ``NEWEST_BAND`` of the leader's) are read as values of
what was asked; when the newest of them says it is a change ("these days", "now",
"switched", "moved", "no longer", ... ``hmem.slots.change_cue``) or fills the leader's
slot, it takes the first place.

"My favourite food is lasagne", later "Pierogi is the dish I like most these days":
no slot reading joins the two, but both answer "What do I most like to eat?" equally,
both are the user's, and the newer one says it is a change. A third party's statement
("my sister moved to Lyon") has another owner and never takes the user's place; a named
person's statements are left to the slot reading (a name dominates their embedding:
"Where does Maya live?" is as close to "Maya now exercises by bouldering" as to her home). Only the
newest moves (into the leader's place, each other hit one place down), so the set of the
first ``NEWEST_TOP`` hits is unchanged: recall@k for k >= ``NEWEST_TOP`` cannot move. Nothing
is marked as an earlier value: that is the slot reading's call (``hmem.recall.rivals``).
"""

from __future__ import annotations

from collections.abc import Callable

from hmem.models import Fact
from hmem.recall.models import Hit
from hmem.recall.scoring import rank_order
from hmem.slots import change_cue, read_slot, same_slot
from hmem.slots.whose import whose

__all__ = ["NEWEST_BAND", "NEWEST_CUE_BAND", "NEWEST_MAX_WORDS", "NEWEST_TOP", "rank_newest"]

#: The first hits looked at.
NEWEST_TOP = 5
#: How far below the leader's dense signal (2 * cosine - 1) a hit still answers as well;
#: ``NEWEST_CUE_BAND`` when its words say it is a change.
NEWEST_BAND = 0.03
NEWEST_CUE_BAND = 0.30
#: A statement, not a chat message: a long message says many things ("the newest" of
#: them is no answer). The development splits' statements hold at most 13 words; a
#: quarter of BEAM's user messages 31 or more.
NEWEST_MAX_WORDS = 25
#: How far above the leader the newest value ranks (score units).
_LIFT = 1e-3


def _when(fact: Fact) -> tuple[float, float]:
    return (fact.valid_from.timestamp(), fact.known_from.timestamp())


def _known_slot(lead: Hit) -> bool:
    """The leader is where it is by what is known of its slot (it replaced a fact, or
    inherited a replaced fact's relevance, or leads rival values): only a statement
    that says it is a change, or fills that slot, takes its place."""
    return bool(lead.predecessors or lead.earlier or "inherited" in lead.parts)


def _answers(hit: Hit, lead: Hit) -> bool:
    """``hit`` answers the question about as well as the leader (or it is the leader)."""
    gap = lead.raw.get("dense", 0.0) - hit.raw.get("dense", 0.0)
    if hit is lead or (gap <= NEWEST_BAND and not _known_slot(lead)):
        return True
    return gap <= NEWEST_CUE_BAND and (
        change_cue(hit.fact.text) is not None
        or same_slot(read_slot(hit.fact.text, False), read_slot(lead.fact.text, False))
    )


def rank_newest(hits: dict[str, Hit], standing: Callable[[Fact], bool]) -> str | None:
    """Lift the newest value of the question's leader group to the first place (in
    place); returns its id, or None when nothing moved."""
    ranked = sorted((h for h in hits.values() if standing(h.fact)), key=rank_order)
    ranked = ranked[:NEWEST_TOP]
    if len(ranked) < 2:
        return None
    lead = ranked[0]
    owner = whose(lead.fact.text)
    if owner != "user" or lead.raw.get("dense", 0.0) <= 0.0 or lead.newer_value is not None:
        # the user's own statements only: a named person's name dominates their
        # embedding ("Where does Maya live?" is as close to "Maya now exercises by
        # bouldering" as to her home), so closeness to the question says little there
        return None
    group = [
        h
        for h in ranked
        if len(h.fact.text.split()) <= NEWEST_MAX_WORDS
        and _answers(h, lead)
        and h.newer_value is None
        and whose(h.fact.text) == owner
        and not read_slot(h.fact.text, False).added
    ]
    if lead not in group:  # an addition leads: values add up
        return None
    # an ending ("Keiko moved out of Porto") ends a value, it states none: never lifted
    values = [h for h in group if h is lead or not read_slot(h.fact.text, False).ends]
    newest = max(values, key=lambda h: _when(h.fact))
    if newest is lead or _when(newest.fact) <= _when(lead.fact):
        return None
    score = lead.score + _LIFT
    parts = dict(newest.parts)
    parts["newest"] = parts.get("newest", 0.0) + score - newest.score
    hits[newest.fact.id] = newest.model_copy(update={"score": score, "parts": parts})
    return newest.fact.id
