"""Hybrid scoring: each signal normalised to 0–1, then a weighted sum.

- dense: cosine similarity clipped to 0–1 (Neo4j reports (1 + cos) / 2; we undo that),
- lexical: BM25 with the user's own statistics (Lucene only finds the facts; its global
  idf would show other users' words: _candidates.cypher), divided by the best lexical
  score of this search,
- entity: matched entities the fact mentions, divided by the best such count; for the
  final score every expanded fact's count comes from its own entity names
  (``complete_entities``), not from the server's entity list, which is cut at
  ``k_entity`` with ties broken by recency (a bonus for being new, not a match),
- recency: 0.995 ** hours since the fact was last used (or learned),
- importance: importance / 10,
- session: the best first-pass score (dense + lexical + entity, weighted) among the
  seeds of the fact's episode: a group scored by its best member, never by a mean,
- adjacent: the first-pass score of a seed one turn away in the same episode,
- time: 1 for a fact that began (valid_from) inside the span of time the question
  names ("in July 2023", "on 7 July, 2023": ``hmem.recall.query.time_window``),
- speaker: 1 for a chat turn said by a person the question names (``Fact.speaker``,
  folded, is one of the question's entity grams or the canonical name of an entity it
  names by an alias): "what did Caroline say about ..." prefers Caroline's turns. In
  the final score only: the server's first pass, whose best members seed the graph
  step and hand their score to a whole session, leaves it out (search_recall.cypher).

Weights come from ``Config`` (0.7 / 0.2 / 0.1, session 0.4, adjacent 0.3, time 0.3,
speaker 0.13, recency and importance 0; tuned on LoCoMo's dev split, see
docs/retrieval.md). Without an
embedder the dense weight is dropped and the others are rescaled to sum to what they
summed to with it, so scores stay comparable in scale.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from hmem.config import SearchSettings
from hmem.models import Fact, canonical_name
from hmem.recall.models import Hit

__all__ = [
    "ScoreWeights",
    "base_scores",
    "complete_entities",
    "rank_order",
    "recency",
    "session_head",
    "table_signals",
    "weighted",
]

RECENCY_BASE = 0.995


# Signals the server gives already in 0-1: the graph step's, the time window's and the
# speaker's.
GIVEN_SOURCES = ("session", "adjacent", "time", "speaker")


@dataclass(frozen=True, slots=True)
class ScoreWeights:
    dense: float = 0.7
    lexical: float = 0.2
    entity: float = 0.1
    recency: float = 0.0
    importance: float = 0.0
    history_boost: float = 0.05
    # A successor takes the replaced fact's whole score, unless a fact that began after
    # it scores ``rival`` of that (a newer value): then a damped share (``handed``),
    # from ``inherit_floor`` (it matches nothing itself) to ``inherit``.
    rival: float = 0.85
    inherit: float = 0.9
    inherit_floor: float = 0.6
    # The graph step: a share of the best first-pass score of the fact's episode
    # (session), and of a turn next to it (adjacent). See search_recall.cypher.
    session: float = 0.4
    adjacent: float = 0.3
    time: float = 0.3  # a fact that began in the span of time the question names
    speaker: float = 0.13  # a turn said by a person the question names
    # The session share counts in the first session_ranks ranks only (see session_head).
    session_ranks: int = 20

    @classmethod
    def from_settings(cls, search: SearchSettings) -> ScoreWeights:
        """The weights ``config.search`` names (the floor never above ``inherit``)."""
        return cls(
            dense=search.w_dense,
            lexical=search.w_lexical,
            entity=search.w_entity,
            session=search.w_session,
            adjacent=search.w_adjacent,
            time=search.w_time,
            speaker=search.w_speaker,
            session_ranks=search.session_ranks,
            recency=search.w_recency,
            importance=search.w_importance,
            history_boost=search.history_boost,
            inherit=search.inherit,
            rival=search.inherit_rival,
            inherit_floor=min(search.inherit_floor, search.inherit),
        )

    def handed(self, replaced: float, own: float) -> float:
        """What a successor inherits from the replaced fact's score when a newer fact
        answers about as well (see the engine's current rule): between
        ``inherit_floor`` and ``inherit`` of it, by how close the successor's own score
        comes to the replaced one's (own / replaced, capped at 1)."""
        if replaced <= 0:
            return 0.0
        match = min(1.0, max(0.0, own / replaced))
        return replaced * (self.inherit_floor + (self.inherit - self.inherit_floor) * match)

    def graph(self) -> tuple[float, float, float, float, float, float, float]:
        """(dense, lexical, entity, session, adjacent, time, speaker): what the server
        scores with."""
        return (
            self.dense, self.lexical, self.entity, self.session, self.adjacent, self.time,
            self.speaker,
        )  # fmt: skip

    def without_dense(self) -> ScoreWeights:
        """Lexical + entity only, rescaled to keep the relevance weights' total."""
        rest = self.lexical + self.entity
        total = self.dense + rest
        if rest <= 0:
            return replace(self, dense=0.0, lexical=total / 2, entity=total / 2)
        scale = total / rest
        return replace(self, dense=0.0, lexical=self.lexical * scale, entity=self.entity * scale)


def base_scores(
    rows: Iterable[tuple[str, str, float]],
) -> dict[str, dict[str, float]]:
    """Raw signals per fact id from (id, source, raw score) candidate rows, each 0–1.

    This is the first pass (the server's too, in search_recall.cypher): it only chooses
    which facts to expand. The entity part is read from the server's entity list, which
    is cut at ``k_entity`` with ties broken by recency; ``complete_entities`` then counts
    the expanded facts' entities exactly for the final score."""
    raw: dict[str, dict[str, float]] = {}
    best = {"lexical": 0.0, "entity": 0.0}
    # session / adjacent (the graph step's first-pass scores), time and speaker come in 0-1
    rows = list(rows)
    for _, source, score in rows:
        if source in best:
            best[source] = max(best[source], score)
    for fact_id, source, score in rows:
        signals = raw.setdefault(fact_id, {"dense": 0.0, "lexical": 0.0, "entity": 0.0})
        if source == "dense":
            value = min(1.0, max(0.0, 2.0 * score - 1.0))
        elif source in GIVEN_SOURCES:
            value = score
        else:
            value = score / best[source] if best[source] > 0 else 0.0
        signals[source] = max(signals.get(source, 0.0), value)
    return raw


def table_signals(
    table: Sequence[Sequence[Any]],
) -> tuple[dict[str, dict[str, float]], dict[str, list[str]], list[tuple[str, str, float]]]:
    """``base_scores`` of the server's one row per candidate ([id, dense, lexical,
    entity, session, adjacent, time, speaker], null where a source did not find it:
    search_recall.cypher), read in one pass: the signals, each fact's sources (in that
    order) and the entity rows (for ``complete_entities``). The same values, keys and
    key order as ``base_scores`` over the rows the table stands for (a unit test
    compares them); without making a row per source first."""
    best_lexical = max([0.0, *(r[2] for r in table if r[2] is not None)])
    best_entity = max([0.0, *(r[3] for r in table if r[3] is not None)])
    signals: dict[str, dict[str, float]] = {}
    sources: dict[str, list[str]] = {}
    entities: list[tuple[str, str, float]] = []
    for fid, dense, lexical, entity, *given in table:
        found: list[str] = []
        raw = {"dense": 0.0, "lexical": 0.0, "entity": 0.0}
        if dense is not None:
            raw["dense"] = min(1.0, max(0.0, 2.0 * dense - 1.0))
            found.append("dense")
        if lexical is not None:
            raw["lexical"] = max(0.0, lexical / best_lexical if best_lexical > 0 else 0.0)
            found.append("lexical")
        if entity is not None:
            raw["entity"] = max(0.0, entity / best_entity if best_entity > 0 else 0.0)
            found.append("entity")
            entities.append((fid, "entity", entity))
        for source, value in zip(GIVEN_SOURCES, given, strict=True):
            if value is not None:
                raw[source] = max(0.0, value)
                found.append(source)
        if not found:  # no source found it: not a candidate (base_scores never sees it)
            continue
        signals[fid] = raw
        sources[fid] = found
    return signals, sources, entities


def complete_entities(
    signals: dict[str, dict[str, float]],
    rows: Iterable[tuple[str, str, float]],
    mentions: Mapping[str, Collection[str]],
    grams: Collection[str],
) -> dict[str, dict[str, float]]:
    """The entity signal of the facts whose entity names are known (``mentions``: fact
    id → names, the expanded facts), counted exactly instead of read from a cut list.

    A fact's count is the number of its entities whose canonical name is one of the
    question's ``grams`` (the server's test), or its count in the entity rows when
    higher (an alias match); normalised by the best count. Every fact counted here is
    counted the same way, old or new: when more facts name the question's entities
    than the server lists (``k_entity``, the newest first), the older ones still count.
    Others keep their signals."""
    rows = list(rows)
    counted = {fid: score for fid, source, score in rows if source == "entity"}
    wanted = set(grams)
    exact: dict[str, float] = {}
    for fid, names in mentions.items():
        if fid not in signals:
            continue
        named = {canonical_name(n) for n in names} & wanted
        exact[fid] = max(float(len(named)), counted.get(fid, 0.0))
    best = max([*counted.values(), *exact.values(), 0.0])
    out = dict(signals)
    for fid, count in exact.items():
        base = out.get(fid, {"dense": 0.0, "lexical": 0.0, "entity": 0.0})
        out[fid] = {**base, "entity": count / best if best > 0 else 0.0}
    return out


def recency(fact: Fact, now: datetime) -> float:
    """0.995 ** hours since last use (or since it was learned); 1.0 for the future."""
    since = fact.last_used_at or fact.known_from
    hours = max(0.0, (now - since).total_seconds() / 3600.0)
    return float(RECENCY_BASE**hours)


def rank_order(hit: Hit) -> tuple[float, float, str]:
    """The order of a ranking: score, then the newer fact, then the id."""
    return (-hit.score, -hit.fact.known_from.timestamp(), hit.fact.id)


def session_head(ranked: Sequence[Hit], ranks: int) -> list[Hit]:
    """The session share counts in the first ``ranks`` ranks only (``ranked`` is best
    first). Later ranks lose it and are ordered again by what is left, the fact's own
    match (and its adjacent turn, time window and speaker).

    Why: the share lifts a whole session, the one holding the best match, which is what
    the top of the list needs. Past the head, more turns of that session push out the
    other sessions a multi-hop question draws on. LoCoMo dev split, R@30 of facts +
    turns 0.859 -> 0.869 at 20 ranks (plateau 18-25), R@5 and R@10 unchanged by
    construction (docs/retrieval.md). A tail hit's score and parts drop the share, so
    the list stays sorted by ``score`` and the parts still add up to it."""
    head, tail = list(ranked[:ranks]), []
    for hit in ranked[ranks:]:
        share = hit.parts.get("session", 0.0)
        if share:
            parts = {k: v for k, v in hit.parts.items() if k != "session"}
            hit = hit.model_copy(update={"score": hit.score - share, "parts": parts})
        tail.append(hit)
    return head + sorted(tail, key=rank_order)


def weighted(
    signals: dict[str, float], weights: ScoreWeights, fact: Fact | None, now: datetime
) -> tuple[float, dict[str, float], dict[str, float]]:
    """The score, its weighted parts, and the raw signals (recency/importance added when
    the fact is known and their weights are non-zero)."""
    raw = dict(signals)
    parts = {
        "dense": weights.dense * raw.get("dense", 0.0),
        "lexical": weights.lexical * raw.get("lexical", 0.0),
        "entity": weights.entity * raw.get("entity", 0.0),
    }
    for source in GIVEN_SOURCES:
        if raw.get(source):
            parts[source] = getattr(weights, source) * raw[source]
    if fact is not None and weights.recency:
        raw["recency"] = recency(fact, now)
        parts["recency"] = weights.recency * raw["recency"]
    if fact is not None and weights.importance:
        raw["importance"] = fact.importance / 10.0
        parts["importance"] = weights.importance * raw["importance"]
    return sum(parts.values()), parts, raw
