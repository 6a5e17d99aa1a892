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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Unpack

from hmem.errors import ValidationError
from hmem.graph.search import (
    DenseStrategy,
    ExpandedFact,
    FactSearch,
    Question,
    Retrieved,
    TemporalMode,
)
from hmem.models import require_aware
from hmem.recall.context import header, pack
from hmem.recall.models import SearchMode, SearchResult, SearchTimings
from hmem.recall.newest import rank_newest, rank_owner
from hmem.recall.query import QueryAnalysis, analyse
from hmem.recall.question import QueryEmbedder, QuestionVectors
from hmem.recall.rivals import rank_rivals
from hmem.recall.rules import CONFLICT_RELATIONS, score_chosen
from hmem.recall.rules import conflicts as find_conflicts
from hmem.recall.scoring import (
    ScoreWeights,
    base_scores,
    complete_entities,
    rank_order,
    session_head,
    table_signals,
)
from hmem.recall.tokens import count_tokens
from hmem.recall.touches import Touches
from hmem.search_options import SEARCH_DEFAULTS, SearchOptions

__all__ = ["QueryEmbedder", "Recall"]

MAX_K = 500


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


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
        vector: Sequence[float] | None = None,
        strategy: DenseStrategy = "auto",
        **options: Unpack[SearchOptions],
    ) -> SearchResult:
        """``Memory.search``'s read path (the options and their defaults:
        ``hmem.search_options``); ``vector``: the question's, when the caller has it;
        ``strategy``: force a dense strategy (measuring)."""
        given: SearchOptions = {**SEARCH_DEFAULTS, **options}
        k, token_budget = given["k"], given["token_budget"]
        as_of, as_of_event = given.get("as_of"), given.get("as_of_event")
        asked = self._ask(query, user_id, k, token_budget, as_of, as_of_event, given.get("now"))
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
        signals, sources, entity_rows = self._signals(got)
        # The chosen facts' entity names are known now: their entity signal is counted
        # exactly, not read from the server's list (cut at k_entity, ties by recency).
        signals = complete_entities(
            signals,
            entity_rows,
            {fid: e.fact.entities for fid, e in by_id.items()},
            asked.analysis.grams,
        )
        hits = score_chosen(
            by_id, chosen, signals, sources, weights, asked.mode, asked.now, as_of, as_of_event
        )
        if asked.mode != "history":
            # rival values of one slot, all open: the newest first (a history question
            # wants them all, in its own order)
            same_day = rank_rivals(hits, lambda fact: fact.known_to is None)
            # and where no slot reading joins them: the newest statement of the leader's
            # owner that answers about as well (top ranks only; hmem.recall.newest)
            # the person the question asks about before another's (top ranks only)
            rank_owner(hits, query, lambda fact: fact.known_to is None)
            rank_newest(hits, lambda fact: fact.known_to is None, query)
        else:
            same_day = []
        conflicts = find_conflicts(hits, by_id, as_of)
        if same_day:
            conflicts = sorted(set(conflicts) | set(same_day))
            for a, b in same_day:
                for one, other in ((a, b), (b, a)):
                    mine = hits[one]
                    if other not in mine.conflicts_with:
                        hits[one] = mine.model_copy(
                            update={"conflicts_with": sorted([*mine.conflicts_with, other])}
                        )
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
        question = Question(
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
        )
        return self.search_backend.retrieve(question, strategy=strategy)

    @staticmethod
    def _signals(
        got: Retrieved,
    ) -> tuple[dict[str, dict[str, float]], dict[str, list[str]], list[tuple[str, str, float]]]:
        """The first pass's signals per candidate, their sources and the entity rows:
        read from the server's one row per candidate when it came so (``retrieve``),
        else from the (id, source, score) rows."""
        if got.candidates.table is not None:
            return table_signals(got.candidates.table)
        rows = got.candidates.rows
        sources: dict[str, list[str]] = {}
        for fid, source, _ in rows:
            sources.setdefault(fid, []).append(source)
        return base_scores(rows), sources, [r for r in rows if r.source == "entity"]

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
