"""The ranking rules over the chosen facts: the final score, the history rule (a
question about the past), the current rule (a replaced fact hands its score on) and
the belief view (``as_of``), and the conflicts among the hits. See hmem.recall.engine
for the rules in words."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from hmem.graph.search import ExpandedFact
from hmem.models import Fact, HistoryStep, SupersedeReason
from hmem.recall.models import Hit, SearchMode
from hmem.recall.rivals import PARSED_WORDS
from hmem.recall.scoring import ScoreWeights, weighted
from hmem.slots import read_slot, same_slot, states_newer_value

__all__ = ["CONFLICT_RELATIONS", "believed", "conflicts", "score_chosen"]

CONFLICT_RELATIONS = frozenset({"conflicts", "contradicts"})


def _once_true(fact: Fact) -> bool:
    return fact.valid_to is None or fact.valid_to > fact.valid_from


def believed(fact: Fact, as_of: datetime) -> Fact:
    """The fact as it stood at belief time ``as_of``: a close learned later is hidden."""
    if fact.known_to is None or fact.known_to <= as_of:
        return fact
    return fact.model_copy(update={"known_to": None, "close_reason": None, "valid_to": None})


def score_chosen(
    by_id: dict[str, ExpandedFact],
    chosen: list[str],
    signals: dict[str, dict[str, float]],
    sources: dict[str, list[str]],
    weights: ScoreWeights,
    mode: SearchMode,
    now: datetime,
    as_of: datetime | None,
    as_of_event: datetime | None,
) -> dict[str, Hit]:
    def view(step_list: list[HistoryStep]) -> list[HistoryStep]:
        if as_of is None:
            return step_list
        # Belief time: a link learned after as_of was not known then.
        return [
            HistoryStep(fact=believed(s.fact, as_of), link=s.link)
            for s in step_list
            if s.link.at <= as_of
        ]

    hits: dict[str, Hit] = {}
    for fid in chosen:
        entry = by_id.get(fid)
        if entry is None:  # erased between the two round trips
            continue
        score, parts, raw = weighted(signals.get(fid, {}), weights, entry.fact, now)
        fact = believed(entry.fact, as_of) if as_of is not None else entry.fact
        hits[fid] = Hit(
            fact=fact,
            score=score,
            parts=parts,
            raw=raw,
            sources=sorted(sources.get(fid, [])),
            predecessors=view(entry.older),
            successors=view(entry.newer),
        )
    if mode == "history":
        # a fact put right as never true is no past value: what it matched goes to its
        # correction ("sorry, I meant teal" for "teel")
        forward_to_current(hits, by_id, signals, sources, weights, now, _once_true)
        promote_history(hits, by_id, signals, sources, weights, now)
    else:

        def in_view(fact: Fact) -> bool:
            if mode == "current":
                return fact.current_at(now)
            # The fact comes as believed at as_of (search_recall.cypher): believed then
            # (known, not withdrawn), and true at as_of_event, else not ended by the
            # belief time (the current rule at that moment: docs/time.md).
            belief = as_of or now
            if as_of is not None:
                fact = believed(fact, as_of)
            withdrawn = fact.withdrawn_at
            held = fact.known_from <= belief and (withdrawn is None or withdrawn > belief)
            if as_of_event is None:
                return held and (fact.valid_to is None or fact.valid_to > belief)
            true_then = fact.valid_from <= as_of_event and (
                fact.valid_to is None or fact.valid_to > as_of_event
            )
            return held and true_then

        forward_to_current(hits, by_id, signals, sources, weights, now, in_view)
        if as_of is not None:  # successors that inherited come unmasked: mask them
            for fid, hit in list(hits.items()):
                hits[fid] = hit.model_copy(
                    update={
                        "fact": believed(hit.fact, as_of),
                        "predecessors": view(hit.predecessors),
                        "successors": view(hit.successors),
                    }
                )
    # Conflict partners fetched for display ride on their partner's score.
    for fid, entry in by_id.items():
        if fid in hits:
            continue
        for other, relation in entry.related:
            if relation in CONFLICT_RELATIONS and other in hits:
                score, parts, raw = weighted(signals.get(fid, {}), weights, entry.fact, now)
                inherited = max(0.0, hits[other].score - score)
                hits[fid] = Hit(
                    fact=believed(entry.fact, as_of) if as_of is not None else entry.fact,
                    score=score + inherited,
                    parts={**parts, "inherited": inherited},
                    raw=raw,
                    sources=sorted(sources.get(fid, [])),
                    predecessors=view(entry.older),
                    successors=view(entry.newer),
                    promoted_by=other,
                )
                break
    return hits


def forward_to_current(
    hits: dict[str, Hit],
    by_id: dict[str, ExpandedFact],
    signals: dict[str, dict[str, float]],
    sources: dict[str, list[str]],
    weights: ScoreWeights,
    now: datetime,
    in_view: Callable[[Fact], bool],
) -> None:
    """Current mode (and as_of, at that moment): a replaced fact that matches the
    question makes the fact that replaced it match ("where does Maya live?" ≈ "Maya
    lives in London" → Paris): the successor takes the replaced fact's score.
    Unless a standing hit that began after the successor states a newer value of
    the replaced fact's slot, or answers about as well as the replaced fact did
    (scores at least ``rival`` of it; ``_newer_value``): then the successor gets only a damped share
    (``ScoreWeights.handed``, growing with its own match), so one that only ends the
    old situation ("Maya cancelled her gym membership") does not outrank it ("Maya now
    goes bouldering"). Replaced facts are not hits."""
    standing = [(h.fact.valid_from, h.score, h.fact.text) for h in hits.values() if in_view(h.fact)]
    for fid in [f for f, h in hits.items() if not in_view(by_id[f].fact)]:
        old = hits.pop(fid)
        for step in by_id[fid].newer:
            new = step.fact
            if not in_view(new):
                continue
            held = hits.get(new.id)
            if held is None:
                score, parts, raw = weighted(signals.get(new.id, {}), weights, new, now)
                entry = by_id.get(new.id)
                held = Hit(
                    fact=new,
                    score=score,
                    parts=parts,
                    raw=raw,
                    sources=sorted(sources.get(new.id, [])),
                    predecessors=entry.older
                    if entry
                    else [HistoryStep(fact=old.fact, link=step.link)],
                    successors=entry.newer if entry else [],
                )
            bar = weights.rival * old.score
            newer_value = any(
                b > new.valid_from and _newer_value(old.fact.text, text, sc >= bar)
                for b, sc, text in standing
            )
            handed = weights.handed(old.score, held.score) if newer_value else old.score
            if handed > held.score:
                parts = dict(held.parts)
                parts["inherited"] = parts.get("inherited", 0.0) + handed - held.score
                held = held.model_copy(update={"score": handed, "parts": parts, "promoted_by": fid})
            hits[new.id] = held
            if step.link.reason is SupersedeReason.ENDED:
                _to_the_next_value(hits, old, new, in_view)


def _to_the_next_value(
    hits: dict[str, Hit], old: Hit, ending: Fact, in_view: Callable[[Fact], bool]
) -> None:
    """A fact that only ended ``old`` ("I broke up with Rahul", "my parrot Nico died")
    is no answer once a later standing fact states the next value of ``old``'s slot
    ("I'm seeing Lucia now", "I got a new parrot, Mochi"): that one takes ``old``'s
    relevance, so it ranks above the ending."""
    before = read_slot(old.fact.text)
    if before.slot is None:
        return
    for fid, hit in list(hits.items()):
        later = hit.fact
        if fid == ending.id or not in_view(later) or later.valid_from < ending.valid_from:
            continue
        after = read_slot(later.text, len(later.text.split()) <= PARSED_WORDS)
        if after.ends or not same_slot(after, before) or after.value == before.value:
            continue
        if old.score > hit.score:
            parts = dict(hit.parts)
            parts["inherited"] = parts.get("inherited", 0.0) + old.score - hit.score
            hits[fid] = hit.model_copy(
                update={"score": old.score, "parts": parts, "promoted_by": old.fact.id}
            )


def _newer_value(replaced: str, rival: str, scores_as_well: bool) -> bool:
    """Whether a later standing fact is a newer value of what a replaced fact said: one
    whose words state another value of the replaced fact's slot (where someone lives,
    who employs them, …) for the same subject is, whatever it scores. Otherwise the
    guess of the score ratio (``ScoreWeights.rival``) stands: it also keeps a successor
    from outranking a fact that answers the question as well as the replaced one did
    ("Does Maya have a pet?": the cat, not the vegan diet that replaced "vegetarian")."""
    return states_newer_value(replaced, rival) is True or scores_as_well


def promote_history(
    hits: dict[str, Hit],
    by_id: dict[str, ExpandedFact],
    signals: dict[str, dict[str, float]],
    sources: dict[str, list[str]],
    weights: ScoreWeights,
    now: datetime,
) -> None:
    """Closed facts that were once true rank as hits: max(own, successor) + boost."""
    best_successor: dict[str, tuple[float, Hit, HistoryStep]] = {}
    for hit in list(hits.values()):
        entry = by_id.get(hit.fact.id)  # a correction brought in by its slip has none
        for step in entry.older if entry is not None else hit.predecessors:
            old = step.fact
            if old.known_to is None or not _once_true(old):
                continue
            held = best_successor.get(old.id)
            if held is None or hit.score > held[0]:
                best_successor[old.id] = (hit.score, hit, step)
    closed_ids = {fid for fid, h in hits.items() if h.fact.known_to is not None}
    for fid in closed_ids | set(best_successor):
        current = hits.get(fid)
        if current is not None and not _once_true(current.fact):
            continue
        inherited_from = best_successor.get(fid)
        if current is not None:
            own, parts, raw = current.score, dict(current.parts), dict(current.raw)
        else:
            assert inherited_from is not None
            step = inherited_from[2]
            own, parts, raw = weighted(signals.get(fid, {}), weights, step.fact, now)
        inherited = 0.0
        promoted_by = None
        if inherited_from is not None and inherited_from[0] > own:
            inherited = inherited_from[0] - own
            promoted_by = inherited_from[1].fact.id
        parts["inherited"] = inherited
        parts["history"] = weights.history_boost
        score = own + inherited + weights.history_boost
        if current is not None:
            hits[fid] = current.model_copy(
                update={"score": score, "parts": parts, "promoted_by": promoted_by}
            )
        else:
            assert inherited_from is not None
            successor, step = inherited_from[1], inherited_from[2]
            hits[fid] = Hit(
                fact=step.fact,
                score=score,
                parts=parts,
                raw=raw,
                sources=sorted(sources.get(fid, [])),
                successors=[HistoryStep(fact=successor.fact, link=step.link)],
                promoted_by=promoted_by,
            )


def conflicts(
    hits: dict[str, Hit], by_id: dict[str, ExpandedFact], as_of: datetime | None
) -> list[tuple[str, str]]:
    """Pairs of standing hits linked as conflicting: shown as both statements."""
    found: set[tuple[str, str]] = set()
    for fid, hit in hits.items():
        entry = by_id.get(fid)
        if entry is None or hit.fact.known_to is not None:
            continue
        for other, relation in entry.related:
            partner = hits.get(other)
            if relation not in CONFLICT_RELATIONS or partner is None:
                continue
            if partner.fact.known_to is not None:
                continue
            pair = (fid, other) if fid < other else (other, fid)
            found.add(pair)
    conflicted = {i for pair in found for i in pair}
    for fid in conflicted:
        others = sorted({b if a == fid else a for a, b in found if fid in (a, b)})
        hits[fid] = hits[fid].model_copy(update={"conflicts_with": others})
    return sorted(found)
