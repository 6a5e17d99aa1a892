"""Rivals among the hits: open facts of the same subject that fill the same
single-valued slot with different values ("I live in Lisbon", later "I just moved to
Porto", nothing closed either). The newest by world time (``valid_from``, then belief
time ``known_from``) ranks first with the best score of them; the others follow it,
marked as earlier values (``Hit.newer_value``; the newest lists them in ``Hit.earlier``)
and shown so in the context block ("earlier: I live in Lisbon, said 2021-03-02"). When
the newest is not clearly newer (the same day), they are an open conflict shown with
their dates instead. Values of a multi-valued slot ("I speak Spanish", "I speak German")
are no rivals: they stay side by side, all current.

Which slot a text fills is read by ``hmem.slots`` (its words only, cached per text), the
same reading the write path closes facts by.
"""

from __future__ import annotations

from collections.abc import Callable

from hmem.models import Fact
from hmem.recall.models import Hit
from hmem.slots import read_slot, read_slots, rivals, same_slot
from hmem.slots.compare import ended_by

__all__ = ["RIVAL_GAP", "rank_rivals"]

#: How far below the newest value each earlier one ranks (score units).
RIVAL_GAP = 1e-3
#: More standing hits than this are not compared pairwise (a k of hundreds).
MAX_COMPARED = 80
#: The best this many of them, if they hold at most PARSED_WORDS words, are read with the
#: parse too (``hmem.slots.read_slots``).
PARSED = 12
PARSED_WORDS = 12


def _when(fact: Fact) -> tuple[float, float]:
    return (fact.valid_from.timestamp(), fact.known_from.timestamp())


def rank_rivals(hits: dict[str, Hit], standing: Callable[[Fact], bool]) -> list[tuple[str, str]]:
    """Reorder rival values in ``hits`` (in place): the newest first, the earlier ones
    just after it and marked. Returns the pairs of same-day rivals (open conflicts)."""
    ids = sorted(
        (fid for fid, h in hits.items() if standing(h.fact)),
        key=lambda fid: _when(hits[fid].fact),
    )[-MAX_COMPARED:]
    if len(ids) < 2:
        return []
    # the parse (spaCy, ~4 ms a text, cached) only for short statements among the best
    # PARSED: a big user's hits are new texts search after search, and a parse of all of
    # them would cost more than the search; the rest by their words alone
    best = sorted(ids, key=lambda fid: -hits[fid].score)[:PARSED]
    short = [f for f in best if len(hits[f].fact.text.split()) <= PARSED_WORDS]
    readings = dict(zip(short, read_slots([hits[f].fact.text for f in short]), strict=True))
    readings |= {f: read_slot(hits[f].fact.text, False) for f in ids if f not in readings}
    ids = [fid for fid in ids if readings[fid].slot is not None or readings[fid].replaced]
    parent = {fid: fid for fid in ids}

    def root(fid: str) -> str:
        while parent[fid] != fid:
            parent[fid] = parent[parent[fid]]
            fid = parent[fid]
        return fid

    # values a later standing fact says ended ("We have a dog called Pickle", later "Sad
    # news: Pickle died"): a newer value of their slot ranks first, even of a slot that
    # holds many ("We brought home a new dog named Sprout")
    ended = {
        fid
        for i, fid in enumerate(ids)
        if (value := readings[fid].value)
        and any(ended_by(hits[later].fact.text, value) for later in ids[i + 1 :])
    }
    for i, older in enumerate(ids):
        for newer in ids[i + 1 :]:
            after, before = readings[newer], readings[older]
            follows = (
                older in ended
                and same_slot(after, before)
                and not after.ends
                and after.value not in (None, before.value)
            )
            if follows or rivals(after, before):
                parent[root(older)] = root(newer)
    groups: dict[str, list[str]] = {}
    for fid in ids:
        groups.setdefault(root(fid), []).append(fid)
    same_day: list[tuple[str, str]] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda fid: _when(hits[fid].fact), reverse=True)
        newest, runner = hits[members[0]].fact, hits[members[1]].fact
        if newest.valid_from.date() == runner.valid_from.date():
            a, b = sorted((members[0], members[1]))
            same_day.append((a, b))
            continue
        _order(hits, members)
    return same_day


def _order(hits: dict[str, Hit], members: list[str]) -> None:
    """``members`` newest first: the newest takes the best score of them, each earlier
    one ranks just below the one before it."""
    top = max(hits[fid].score for fid in members)
    newest = hits[members[0]]
    earlier = [hits[fid].fact for fid in members[1:]]
    parts = dict(newest.parts)
    parts["rival"] = parts.get("rival", 0.0) + top - newest.score
    hits[members[0]] = newest.model_copy(update={"score": top, "parts": parts, "earlier": earlier})
    ceiling = top
    for fid in members[1:]:
        hit = hits[fid]
        score = min(hit.score, ceiling - RIVAL_GAP)
        parts = dict(hit.parts)
        parts["rival"] = parts.get("rival", 0.0) + score - hit.score
        hits[fid] = hit.model_copy(
            update={"score": score, "parts": parts, "newer_value": members[0]}
        )
        ceiling = score
