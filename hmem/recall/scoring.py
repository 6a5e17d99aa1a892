"""Hybrid scoring: each signal normalised to 0–1, then a weighted sum.

- dense: cosine similarity clipped to 0–1 (Neo4j reports (1 + cos) / 2; we undo that),
- lexical: the Lucene score divided by the best lexical score of this search,
- entity: matched entities the fact mentions, divided by the best such count; for the
  final score every expanded fact's count comes from its own entity names
  (``complete_entities``), not from the server's entity list, which is cut at
  ``k_entity`` with ties broken by recency (a bonus for being new, not a match),
- recency: 0.995 ** hours since the fact was last used (or learned),
- importance: importance / 10.

Weights come from ``Config`` (0.8 / 0.1 / 0.1, recency and importance 0). Without an
embedder the dense weight is dropped and the others are rescaled to sum to what they
summed to with it, so scores stay comparable in scale.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from hmem.models import Fact, canonical_name

__all__ = [
    "ScoreWeights",
    "base_scores",
    "complete_entities",
    "recency",
    "weighted",
]

RECENCY_BASE = 0.995


@dataclass(frozen=True, slots=True)
class ScoreWeights:
    dense: float = 0.8
    lexical: float = 0.1
    entity: float = 0.1
    recency: float = 0.0
    importance: float = 0.0
    history_boost: float = 0.05
    inherit: float = 0.9  # share of a replaced fact's score its successor can inherit

    def without_dense(self) -> ScoreWeights:
        """Lexical + entity only, rescaled to keep the relevance weights' total."""
        rest = self.lexical + self.entity
        total = self.dense + rest
        if rest <= 0:
            return ScoreWeights(
                0.0,
                total / 2,
                total / 2,
                self.recency,
                self.importance,
                self.history_boost,
                self.inherit,
            )
        scale = total / rest
        return ScoreWeights(
            0.0,
            self.lexical * scale,
            self.entity * scale,
            self.recency,
            self.importance,
            self.history_boost,
            self.inherit,
        )


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
    rows = list(rows)
    for _, source, score in rows:
        if source in best:
            best[source] = max(best[source], score)
    for fact_id, source, score in rows:
        signals = raw.setdefault(fact_id, {"dense": 0.0, "lexical": 0.0, "entity": 0.0})
        if source == "dense":
            value = min(1.0, max(0.0, 2.0 * score - 1.0))
        else:
            value = score / best[source] if best[source] > 0 else 0.0
        signals[source] = max(signals[source], value)
    return raw


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
    if fact is not None and weights.recency:
        raw["recency"] = recency(fact, now)
        parts["recency"] = weights.recency * raw["recency"]
    if fact is not None and weights.importance:
        raw["importance"] = fact.importance / 10.0
        parts["importance"] = weights.importance * raw["importance"]
    return sum(parts.values()), parts, raw
