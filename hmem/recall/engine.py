"""``Recall``: the read path from question to context block, with no model on it.

``Recall.search`` runs its steps in order:

1. ``_ask``: check the arguments, analyse the question (past cue, words + stems, Lucene
   query, entity grams, time window) and pick the temporal mode;
2. ``_vector``: the question's vector, one embedding call (the embedder's latency path
   when it has one), none for a question asked again (``QuestionVectors``' cache);
3. ``_retrieve``: ONE round trip (FactSearch.retrieve): candidates (dense + lexical +
   entity), the graph step, the server's hybrid score, which alone chooses the best
   ``keep`` to expand (one SUPERSEDES hop each way); a second only for conflict
   partners not among them;
4. ``_rank``: the final score of the chosen (the candidates' signals, entity counts made
   exact, recency / importance), the history rule or the belief view, conflicts;
5. ``pack`` by tokens into the context block; the returned facts' ``last_used_at`` is
   stamped later, batched (``Touches``).

The history rule: when the question is about the past (see ``query.is_about_the_past``)
and no ``as_of`` / ``as_of_event`` is given, candidates include closed facts that were
once true, and every closed fact ranks as a hit with ``max(own score, score of the hit
that replaced it) + history_boost``. So "where did Maya live before?" puts the closed
London fact first, carrying its pointer to Paris.

The current rule (the default): closed facts are candidates too, but only to hand their
score to the current fact that replaced them (one hop, damped: 0.6 to 0.9 of it, more the
better the successor matches the question itself, see ``ScoreWeights.handed``):
"where does Maya live?" matches "Maya lives in London" best, so Paris, which replaced
it, ranks with (most of) that score, and
London appears only in Paris's ``predecessors``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from hmem.errors import ValidationError
from hmem.graph.search import DenseStrategy, ExpandedFact, FactSearch, Retrieved, TemporalMode
from hmem.models import Fact, HistoryStep, require_aware
from hmem.recall.context import header, pack
from hmem.recall.models import Hit, SearchMode, SearchResult, SearchTimings
from hmem.recall.query import QueryAnalysis, analyse
from hmem.recall.question import QueryEmbedder, QuestionVectors
from hmem.recall.scoring import (
    ScoreWeights,
    base_scores,
    complete_entities,
    rank_order,
    session_head,
    weighted,
)
from hmem.recall.tokens import count_tokens
from hmem.recall.touches import Touches

__all__ = ["QueryEmbedder", "Recall"]

MAX_K = 500
CONFLICT_RELATIONS = frozenset({"conflicts", "contradicts"})


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _once_true(fact: Fact) -> bool:
    return fact.valid_to is None or fact.valid_to > fact.valid_from


def _believed(fact: Fact, as_of: datetime) -> Fact:
    """The fact as it stood at belief time ``as_of``: a close learned later is hidden."""
    if fact.known_to is None or fact.known_to <= as_of:
        return fact
    return fact.model_copy(update={"known_to": None, "close_reason": None, "valid_to": None})


@dataclass
class _Asked:
    """A checked question and what its analysis decided."""

    query: str
    user_id: str
    k: int
    token_budget: int
    as_of: datetime | None
    as_of_event: datetime | None
    now: datetime
    analysis: QueryAnalysis
    mode: SearchMode
    graph_mode: TemporalMode
    notes: list[str] = field(default_factory=list)

    @property
    def keep(self) -> int:
        # The history/forward rules (a replaced fact hands its score on, then leaves) and
        # recency/importance reorder the server's choice: expand k plus a margin (a
        # third, at least min(k, 5)). 40 expanded facts cost ~1.8 ms of server time at
        # 1M (see docs/retrieval.md); LoCoMo's recall figures and the golden set are
        # unchanged from 2k.
        return self.k + max(self.k // 3, min(self.k, 5))


class Recall:
    """Hybrid, temporal recall over one ``FactSearch``."""

    def __init__(
        self,
        search: FactSearch,
        *,
        weights: ScoreWeights | None = None,
        embedder: QueryEmbedder | None = None,
        touch: bool = True,
        names_share: float = 0.5,
        vector_cache: int = 1024,
        touch_delay_s: float = 1.0,
    ) -> None:
        self.search_backend = search
        self.weights = weights or ScoreWeights()
        # The question is embedded as asked and without its names (query.dense_text),
        # and searched with the mix: names_share of the first (0: without names only,
        # 1: as asked; the benchmark's ablation rows).
        self.names_share = names_share
        self.embedder = embedder
        self.vectors = QuestionVectors(vector_cache)
        self._touch = touch
        self._touches = Touches(search.touch_many, delay_s=touch_delay_s)

    def flush(self, timeout: float | None = 30.0) -> None:
        """Write pending ``last_used_at`` updates now (tests, expiry and shutdown)."""
        self._touches.flush()

    def close(self) -> None:
        self._touches.close()

    # -- the read path --------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 30,
        token_budget: int = 4000,
        as_of: datetime | None = None,
        as_of_event: datetime | None = None,
        now: datetime | None = None,
        vector: Sequence[float] | None = None,
        strategy: DenseStrategy = "auto",
    ) -> SearchResult:
        asked = self._ask(query, user_id, k, token_budget, as_of, as_of_event, now)
        vector, embed_ms = self._vector(asked, vector)
        weights = self.weights
        if vector is None:
            weights = weights.without_dense()
            asked.notes.append("no embedder: lexical + entity search only")
        if asked.mode == "history":
            asked.notes.append("question about the past: replaced facts rank as hits")
        if asked.analysis.window is not None:
            start, end = asked.analysis.window
            asked.notes.append(f"time named: facts that began {start:%Y-%m-%d} .. {end:%Y-%m-%d}")

        started = time.perf_counter()
        got = self._retrieve(asked, vector, weights, strategy)
        candidates_ms = _ms(started)

        started = time.perf_counter()
        by_id, chosen, more_ms = self._expanded(asked, got)
        expand_ms = _ms(started)

        started = time.perf_counter()
        rows = [(c.id, c.source, c.score) for c in got.candidates.rows]
        signals = base_scores(rows)
        sources: dict[str, list[str]] = {}
        for fid, source, _ in rows:
            sources.setdefault(fid, []).append(source)
        # The chosen facts' entity names are known now: their entity signal is counted
        # exactly, not read from the server's list (cut at k_entity, ties by recency).
        signals = complete_entities(
            signals, rows, {fid: e.fact.entities for fid, e in by_id.items()}, asked.analysis.grams
        )
        hits = self._score(
            by_id, chosen, signals, sources, weights, asked.mode, asked.now, as_of, as_of_event
        )
        conflicts = self._conflicts(hits, by_id, as_of)
        ranked = sorted(hits.values(), key=rank_order)
        top = session_head(ranked, weights.session_ranks)[:k]
        pairs = [(hits[a], hits[b]) for a, b in conflicts if a in hits and b in hits]
        packed, context, tokens = pack(
            top,
            pairs,
            budget=token_budget,
            now=asked.now,
            title=header(asked.mode, as_of, as_of_event),
            count=count_tokens,
        )
        scoring_ms = _ms(started)
        if self._touch:
            self._touches.add(user_id, [h.fact.id for h in packed], asked.now)
        trips = got.candidates.round_trips + (1 if more_ms is not None else 0)
        return SearchResult(
            query=query,
            user_id=user_id,
            hits=packed,
            context=context,
            tokens=tokens,
            token_budget=token_budget,
            mode=asked.mode,
            as_of=as_of,
            as_of_event=as_of_event,
            dense=vector is not None,
            strategy=got.candidates.strategy,
            candidates=len(signals),
            dropped=len(ranked) - len(packed),
            notes=asked.notes,
            timings=SearchTimings(
                embed_ms=embed_ms,
                candidates_ms=candidates_ms,
                expand_ms=expand_ms,
                scoring_ms=scoring_ms,
                recall_ms=candidates_ms + expand_ms + scoring_ms,
                server_ms=got.candidates.server_ms + (more_ms or 0.0),
                round_trips=trips,
            ),
        )

    # -- the steps ------------------------------------------------------------------------
    @staticmethod
    def _ask(
        query: str,
        user_id: str,
        k: int,
        token_budget: int,
        as_of: datetime | None,
        as_of_event: datetime | None,
        now: datetime | None,
    ) -> _Asked:
        """Step 1: the arguments checked, the question analysed, the mode chosen."""
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query must be a non-empty string")
        if not 1 <= k <= MAX_K:
            raise ValidationError(f"k must be 1..{MAX_K}")
        if token_budget < 1:
            raise ValidationError("token_budget must be positive")
        require_aware(as_of, "as_of")
        require_aware(as_of_event, "as_of_event")
        now = require_aware(now, "now") or _utcnow()
        analysis = analyse(query, now)
        mode: SearchMode
        graph_mode: TemporalMode
        if as_of is not None or as_of_event is not None:
            # Like the current rule, at that moment: what was replaced by then hands
            # its score on to what replaced it; nothing later than the moment enters.
            mode, graph_mode = "as_of", "asof_history"
        elif analysis.about_the_past:
            mode, graph_mode = "history", "history"
        else:
            # Replaced facts are candidates too: they hand their relevance to the fact
            # that replaced them (see _forward_to_current), then leave the hit list.
            mode, graph_mode = "current", "history"
        return _Asked(
            query, user_id, k, token_budget, as_of, as_of_event, now, analysis, mode, graph_mode
        )

    def _vector(
        self, asked: _Asked, given: Sequence[float] | None
    ) -> tuple[Sequence[float] | None, float]:
        """Step 2: the vector given, else the question's (cached), else none."""
        if given is not None or self.embedder is None:
            return given, 0.0
        started = time.perf_counter()
        vector, _ = self.vectors.vector(
            self.embedder, asked.query, asked.analysis.dense, self.names_share
        )
        return vector, _ms(started)

    def _retrieve(
        self,
        asked: _Asked,
        vector: Sequence[float] | None,
        weights: ScoreWeights,
        strategy: DenseStrategy,
    ) -> Retrieved:
        """Step 3: one round trip: the candidates and the expansion of the best
        ``asked.keep`` by the server's hybrid score (the same weights as ours; it is the
        one place that score is computed: ``_expanded`` takes its choice as it is)."""
        k, analysis = asked.k, asked.analysis
        return self.search_backend.retrieve(
            asked.user_id,
            vector=vector,
            lucene=analysis.lucene,
            names=analysis.names,
            entity_grams=analysis.grams,
            mode=asked.graph_mode,
            now=asked.now,
            weights=weights.graph(),
            keep=asked.keep,
            as_of=asked.as_of,
            as_of_event=asked.as_of_event,
            window=analysis.window,
            k_dense=max(2 * k, 20),
            k_lexical=max(k, 20),
            k_entity=max(2 * k, 20),
            strategy=strategy,
        )

    def _expanded(
        self, asked: _Asked, got: Retrieved
    ) -> tuple[dict[str, ExpandedFact], list[str], float | None]:
        """The server's choice (its order, at most ``keep``), plus the conflict partners
        of the chosen that it did not expand (a second round trip, only then: its
        server time, else None)."""
        chosen = [e.fact.id for e in got.expanded][: asked.keep]
        wanted = set(chosen)
        by_id = {e.fact.id: e for e in got.expanded if e.fact.id in wanted}
        partners = {
            other
            for e in by_id.values()
            for other, relation in e.related
            if relation in CONFLICT_RELATIONS and other not in by_id
        }
        if not partners:
            return by_id, chosen, None
        extra, more_ms = self.search_backend.expand(asked.user_id, sorted(partners))
        by_id.update({e.fact.id: e for e in extra})
        return by_id, chosen, more_ms

    # -- scoring and the history rule -----------------------------------------------------
    def _score(
        self,
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
                HistoryStep(fact=_believed(s.fact, as_of), link=s.link)
                for s in step_list
                if s.link.at <= as_of
            ]

        hits: dict[str, Hit] = {}
        for fid in chosen:
            entry = by_id.get(fid)
            if entry is None:  # erased between the two round trips
                continue
            score, parts, raw = weighted(signals.get(fid, {}), weights, entry.fact, now)
            fact = _believed(entry.fact, as_of) if as_of is not None else entry.fact
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
            self._promote_history(hits, by_id, signals, sources, weights, now)
        else:

            def in_view(fact: Fact) -> bool:
                if mode == "current":
                    return fact.current_at(now)
                believed = as_of is None or (
                    fact.known_from <= as_of and (fact.known_to is None or fact.known_to > as_of)
                )
                true_then = as_of_event is None or (
                    fact.valid_from <= as_of_event
                    and (fact.valid_to is None or fact.valid_to > as_of_event)
                )
                return believed and true_then

            self._forward_to_current(hits, by_id, signals, sources, weights, now, in_view)
            if as_of is not None:  # successors that inherited come unmasked: mask them
                for fid, hit in list(hits.items()):
                    hits[fid] = hit.model_copy(
                        update={
                            "fact": _believed(hit.fact, as_of),
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
                        fact=_believed(entry.fact, as_of) if as_of is not None else entry.fact,
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

    def _forward_to_current(
        self,
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
        Unless a standing hit that began after the successor answers about as well as
        the replaced fact did (scores at least ``rival`` of it): that is a newer
        value, and the successor gets only a damped share (``ScoreWeights.handed``,
        growing with its own match), so one that only ends the old situation ("Maya
        cancelled her gym membership") does not outrank it ("Maya now goes
        bouldering"). Replaced facts are not hits."""
        standing = [(h.fact.valid_from, h.score) for h in hits.values() if in_view(h.fact)]
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
                newer_value = any(b > new.valid_from and sc >= bar for b, sc in standing)
                handed = weights.handed(old.score, held.score) if newer_value else old.score
                if handed > held.score:
                    parts = dict(held.parts)
                    parts["inherited"] = parts.get("inherited", 0.0) + handed - held.score
                    held = held.model_copy(
                        update={"score": handed, "parts": parts, "promoted_by": fid}
                    )
                hits[new.id] = held

    def _promote_history(
        self,
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
            entry = by_id[hit.fact.id]
            for step in entry.older:
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

    @staticmethod
    def _conflicts(
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
