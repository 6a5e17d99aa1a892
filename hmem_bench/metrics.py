"""Evidence metrics for ranked retrieval.

An item (a stored fact or turn) covers the dialogue ids it came from; a question has
gold evidence ids. At a cutoff (top k, or as many ranked items as fit a token budget):

- evidence recall: the share of the gold ids covered, averaged over questions;
- hit rate: the share of questions with at least one gold id covered;
- full recall: the share of questions with every gold id covered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["BUDGETS", "KS", "Ranked", "Scores", "budget_cut", "evaluate"]

KS = (5, 10, 30)
BUDGETS = (500, 1000, 2000, 4000)


@dataclass(frozen=True)
class Ranked:
    """One question's ranked items: each item's evidence ids and its token cost."""

    category: int
    gold: frozenset[str]
    evidence: Sequence[frozenset[str]]
    tokens: Sequence[int]
    latency_ms: float = 0.0


def budget_cut(tokens: Sequence[int], budget: int) -> list[int]:
    """Indexes of the ranked items packed into ``budget`` tokens: in rank order, an
    item that does not fit is skipped and packing goes on with the next."""
    used, kept = 0, []
    for i, cost in enumerate(tokens):
        if used + cost <= budget:
            used += cost
            kept.append(i)
    return kept


@dataclass
class _Acc:
    n: int = 0
    recall: float = 0.0
    hit: float = 0.0
    full: float = 0.0

    def add(self, gold: frozenset[str], covered: set[str]) -> None:
        found = len(gold & covered)
        self.n += 1
        self.recall += found / len(gold)
        self.hit += 1.0 if found else 0.0
        self.full += 1.0 if found == len(gold) else 0.0

    def as_dict(self) -> dict[str, float]:
        n = max(self.n, 1)
        return {"recall": self.recall / n, "hit": self.hit / n, "full": self.full / n, "n": self.n}


@dataclass
class Scores:
    """``cuts[cut][category]`` → ``{recall, hit, full, n}``, with category ``"all"``;
    cut names are ``"k5"``… and ``"t500"``…"""

    cuts: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)
    questions: int = 0

    def get(self, cut: str, what: str = "recall", category: str = "all") -> float:
        return float(self.cuts[cut][category][what])


def _covered(evidence: Sequence[frozenset[str]], indexes: Iterable[int]) -> set[str]:
    out: set[str] = set()
    for i in indexes:
        out |= evidence[i]
    return out


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def evaluate(
    results: Iterable[Ranked], ks: Sequence[int] = KS, budgets: Sequence[int] = BUDGETS
) -> Scores:
    """Aggregate per cut and per category; questions without gold evidence are left out."""
    accs: dict[str, dict[str, _Acc]] = {}
    latencies: list[float] = []
    count = 0
    for r in results:
        if not r.gold:
            continue
        count += 1
        latencies.append(r.latency_ms)
        cuts: dict[str, list[int]] = {f"k{k}": list(range(min(k, len(r.evidence)))) for k in ks}
        cuts |= {f"t{b}": budget_cut(r.tokens, b) for b in budgets}
        for name, indexes in cuts.items():
            covered = _covered(r.evidence, indexes)
            per = accs.setdefault(name, {})
            for cat in ("all", str(r.category)):
                per.setdefault(cat, _Acc()).add(r.gold, covered)
    scores = Scores(questions=count)
    scores.cuts = {
        cut: {cat: acc.as_dict() for cat, acc in sorted(per.items())} for cut, per in accs.items()
    }
    scores.latency_ms = {
        "p50": _percentile(latencies, 0.5),
        "p95": _percentile(latencies, 0.95),
        "mean": sum(latencies) / len(latencies) if latencies else 0.0,
    }
    return scores
