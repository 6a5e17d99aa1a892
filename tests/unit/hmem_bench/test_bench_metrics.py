"""Metrics, rankers and the BEAM supersession plan on tiny synthetic data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from hmem_bench.beam import plan_supersession, summarise
from hmem_bench.data import BeamChat, BeamMessage, BeamProbe
from hmem_bench.fake_llm import minimal_instance
from hmem_bench.metrics import Ranked, budget_cut, evaluate
from hmem_bench.textrank import BM25, count_tokens, minmax


def test_recall_hit_and_full_at_k() -> None:
    ranked = [
        Ranked(
            1,
            frozenset({"D1:1", "D1:2"}),
            [frozenset({"D1:1"}), frozenset(), frozenset({"D1:2"})],
            [10, 10, 10],
        ),
        Ranked(4, frozenset({"D2:1"}), [frozenset(), frozenset({"D2:1"})], [10, 10]),
        Ranked(2, frozenset(), [frozenset()], [1]),  # no gold evidence: left out
    ]
    scores = evaluate(ranked, ks=(1, 3), budgets=(15,))
    assert scores.questions == 2
    assert scores.get("k1") == 0.25  # (1/2 + 0) / 2
    assert scores.get("k1", "hit") == 0.5
    assert scores.get("k3", "full") == 1.0
    assert scores.get("k3", "recall", "1") == 1.0
    assert scores.get("t15") == 0.25  # only the first item fits 15 tokens


def test_budget_skips_what_does_not_fit() -> None:
    assert budget_cut([300, 800, 100, 50], 500) == [0, 2, 3]


def test_bm25_prefers_matching_documents() -> None:
    bm25 = BM25(["the cat sat on the mat", "dogs bark loudly", "a cat and a dog"])
    scores = bm25.scores("cat")
    assert scores[1] == 0.0 and scores[0] > 0 and scores[2] > 0
    assert scores[2] > scores[0]  # the shorter document
    assert bm25.scores("loud dogs").argmax() == 1
    assert not bm25.scores("the zebra").any()  # a stop word and an unknown word
    assert BM25([]).scores("cat").shape == (0,)


def test_minmax_and_tokens() -> None:
    assert list(minmax(np.array([2.0, 4.0, 3.0]))) == [0.0, 1.0, 0.5]
    assert list(minmax(np.array([1.0, 1.0]))) == [0.0, 0.0]
    assert count_tokens("Hello, world!") == 4


def test_supersession_plan_skips_self_updates() -> None:
    t = datetime(2024, 1, 1, tzinfo=UTC)
    messages = tuple(BeamMessage(i, f"m{i}", t + timedelta(minutes=i)) for i in (0, 2, 4))
    probes = (
        BeamProbe("q", "a", (0,), (2,)),
        BeamProbe("q", "a", (4,), (4,)),  # the update is the original itself
    )
    edges, usable, excluded = plan_supersession(BeamChat("c", messages, probes))
    assert edges == {2: [0]}
    assert len(usable) == 1 and excluded == 1
    assert summarise([{"updated_top1": True}, {"updated_top1": False}])["updated_top1"] == 0.5


def test_minimal_instance_fills_required_fields() -> None:
    schema = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/X"}},
            "name": {"type": "string"},
            "when": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "n": {"type": "integer", "minimum": 1},
        },
        "$defs": {"X": {"type": "object", "properties": {}}},
    }
    assert minimal_instance(schema) == {"items": [], "name": "n/a", "when": None, "n": 1}
