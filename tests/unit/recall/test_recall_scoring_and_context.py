"""Hybrid scoring, the context block and token packing (pure Python)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hmem.models import Fact, HistoryStep, SupersedeReason, SupersessionLink
from hmem.recall.context import pack, render_conflict, render_hit, window
from hmem.recall.models import Hit
from hmem.recall.scoring import (
    ScoreWeights,
    base_scores,
    complete_entities,
    rank_order,
    recency,
    session_head,
    weighted,
)
from hmem.recall.tokens import count_tokens


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 9, tzinfo=UTC)


NOW = day(2026, 6, 1)


def fact(fid: str, text: str, **kw: object) -> Fact:
    data: dict[str, object] = {
        "id": fid,
        "user_id": "u",
        "text": text,
        "category": "semantic",
        "importance": 5,
        "hash": fid,
        "valid_from": day(2025, 1, 14),
        "known_from": day(2025, 1, 14),
        "ingested_at": day(2025, 1, 14),
    }
    data.update(kw)
    return Fact.model_validate(data)


LONDON = fact(
    "london",
    "Maya lives in London.",
    valid_from=day(2019, 9, 1),
    valid_to=day(2026, 3, 1),
    known_to=day(2026, 3, 2),
    close_reason="contradiction",
)
PARIS = fact(
    "paris",
    "Maya moved from London to Paris in March 2026.",
    valid_from=day(2026, 3, 1),
    known_from=day(2026, 3, 2),
)
LINK = SupersessionLink(
    new_id="paris", old_id="london", reason=SupersedeReason.CONTRADICTION, at=day(2026, 3, 2)
)


def test_signals_are_normalised_to_unit_interval() -> None:
    raw = base_scores(
        [
            ("a", "dense", 0.9),  # (1 + cos) / 2 = 0.9 → cos 0.8
            ("b", "dense", 0.3),  # negative cosine → 0
            ("a", "lexical", 4.0),
            ("b", "lexical", 2.0),
            ("b", "entity", 2.0),
            ("c", "entity", 1.0),
        ]
    )
    assert raw["a"] == {"dense": pytest.approx(0.8), "lexical": 1.0, "entity": 0.0}
    assert raw["b"] == {"dense": 0.0, "lexical": 0.5, "entity": 1.0}
    assert raw["c"]["entity"] == 0.5


def test_expanded_facts_count_their_entities_exactly() -> None:
    """The server's entity list is cut at k_entity, newest first: a fact cut off it
    that names the same entity counts as much once its own names are known."""
    rows = [
        ("new", "entity", 1.0),
        ("new", "dense", 0.8),
        ("old", "dense", 0.9),  # mentions Maya, cut off the entity list
        ("alias", "entity", 1.0),  # matched through an alias the names do not show
        ("other", "dense", 0.85),
    ]
    signals = base_scores(rows)
    assert signals["new"]["entity"] == 1.0
    assert signals["old"]["entity"] == 0.0
    mentions = {"new": ["Maya"], "old": ["maya", "Paris"], "alias": ["Robert"], "other": ["Tom"]}
    done = complete_entities(signals, rows, mentions, ["maya", "where", "bob"])
    assert done["new"]["entity"] == done["old"]["entity"] == done["alias"]["entity"] == 1.0
    assert done["other"]["entity"] == 0.0
    assert done["old"]["dense"] == signals["old"]["dense"]
    assert complete_entities(signals, rows, {"stranger": ["Maya"]}, ["maya"]) == signals


def test_weights_default_and_parts_add_up() -> None:
    score, parts, _ = weighted(
        {"dense": 0.5, "lexical": 1.0, "entity": 1.0}, ScoreWeights(), None, NOW
    )
    assert parts == pytest.approx({"dense": 0.35, "lexical": 0.2, "entity": 0.1})
    assert score == pytest.approx(sum(parts.values()))


def test_graph_signals_are_first_pass_scores_weighted_as_given() -> None:
    rows = [("a", "dense", 0.9), ("b", "session", 0.42), ("b", "adjacent", 0.3)]
    raw = base_scores(rows)
    assert raw["b"]["session"] == 0.42 and raw["b"]["adjacent"] == 0.3  # not normalised
    w = ScoreWeights(session=0.5, adjacent=0.25)
    score, parts, _ = weighted(raw["b"], w, None, NOW)
    assert parts["session"] == pytest.approx(0.21) and parts["adjacent"] == pytest.approx(0.075)
    assert score == pytest.approx(0.285)
    assert "session" not in weighted(raw["a"], w, None, NOW)[1]  # no part without a signal
    assert ScoreWeights().graph() == (0.7, 0.2, 0.1, 0.4, 0.3, 0.3, 0.13)


def test_the_speaker_signal_is_given_and_weighted() -> None:
    rows = [("a", "dense", 0.9), ("a", "speaker", 1.0), ("a", "speaker", 1.0), ("b", "dense", 0.9)]
    raw = base_scores(rows)
    assert raw["a"]["speaker"] == 1.0 and "speaker" not in raw["b"]  # not normalised
    w = ScoreWeights(speaker=0.1)
    score, parts, _ = weighted(raw["a"], w, None, NOW)
    assert parts["speaker"] == pytest.approx(0.1)
    assert score == pytest.approx(0.7 * 0.8 + 0.1)
    assert score - weighted(raw["b"], w, None, NOW)[0] == pytest.approx(0.1)
    assert "speaker" not in weighted(raw["b"], w, None, NOW)[1]  # no part without it
    off = weighted(raw["a"], ScoreWeights(speaker=0.0), None, NOW)
    assert off[1]["speaker"] == 0.0 and off[2]["speaker"] == 1.0  # shown, weighs nothing
    assert ScoreWeights().without_dense().speaker == ScoreWeights().speaker


def test_a_successor_inherits_more_the_better_it_matches_itself() -> None:
    w = ScoreWeights()
    assert w.handed(0.8, 0.0) == pytest.approx(0.8 * 0.6)  # only ends the old situation
    assert w.handed(0.8, 0.4) == pytest.approx(0.8 * 0.75)
    assert w.handed(0.8, 0.8) == pytest.approx(0.8 * 0.9)  # states the new one as well
    assert w.handed(0.8, 2.0) == pytest.approx(0.8 * 0.9)
    assert w.handed(0.0, 0.5) == 0.0


def test_the_session_share_counts_in_the_head_of_the_ranking_only() -> None:
    def hit(fid: str, own: float, session: float) -> Hit:
        parts = {"dense": own, "session": session} if session else {"dense": own}
        return Hit(fact=fact(fid, fid), score=own + session, parts=parts)

    # a, b: the best session's turns; c, d: other sessions' facts that match better alone
    ranked = sorted(
        [hit("a", 0.5, 0.3), hit("b", 0.3, 0.3), hit("x", 0.2, 0.3), hit("c", 0.45, 0.0),
         hit("d", 0.4, 0.05)],
        key=rank_order,
    )  # fmt: skip
    assert [h.fact.id for h in ranked] == ["a", "b", "x", "c", "d"]
    out = session_head(ranked, 2)
    assert [h.fact.id for h in out] == ["a", "b", "c", "d", "x"]
    assert out[:2] == ranked[:2]  # the head is untouched
    for h in out[2:]:  # the tail drops the share: the parts still add up, sorted by score
        assert "session" not in h.parts
        assert h.score == pytest.approx(sum(h.parts.values()))
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)
    assert session_head(ranked, 10) == ranked  # a list shorter than the head
    assert [h.fact.id for h in session_head(ranked, 0)] == ["a", "c", "d", "b", "x"]
    assert ScoreWeights().session_ranks == 20


def test_without_dense_keeps_the_scale() -> None:
    w = ScoreWeights().without_dense()
    assert w.dense == 0
    assert w.lexical + w.entity == pytest.approx(1.0)


def test_recency_and_importance_are_optional_parts() -> None:
    used = fact("x", "X", last_used_at=day(2026, 5, 31), importance=8)
    assert recency(used, NOW) == pytest.approx(0.995**24)
    w = ScoreWeights(recency=0.1, importance=0.2)
    score, parts, raw = weighted({"dense": 1.0}, w, used, NOW)
    assert parts["recency"] == pytest.approx(0.1 * 0.995**24)
    assert parts["importance"] == pytest.approx(0.2 * 0.8)
    assert raw["importance"] == 0.8
    assert score == pytest.approx(sum(parts.values()))
    # 2,000 hours unused: the seeds' 0.000044
    old = fact("o", "O", last_used_at=day(2026, 1, 1))
    assert recency(old, day(2026, 1, 1).replace(month=3, day=25, hour=17)) < 0.0001


def test_windows() -> None:
    assert window(LONDON, NOW) == "2019-09-01 → 2026-03-01"
    assert window(PARIS, NOW) == "since 2026-03-01"
    assert window(fact("f", "F", valid_from=day(2026, 9, 1)), NOW) == "from 2026-09-01"


def test_a_turn_reads_with_who_said_it() -> None:
    said = fact("t1", "I painted the lake today.", speaker="caroline")
    assert render_hit(Hit(fact=said, score=1, parts={}), NOW) == (
        "- caroline: I painted the lake today [2025-01-14] (since 2025-01-14)"
    )
    prefixed = fact("t2", "Caroline: I painted the lake.", speaker="caroline")
    assert render_hit(Hit(fact=prefixed, score=1, parts={}), NOW).startswith(
        "- Caroline: I painted the lake ("
    )  # not twice


def test_replaced_fact_shows_its_successor() -> None:
    hit = Hit(fact=LONDON, score=1, parts={}, successors=[HistoryStep(fact=PARIS, link=LINK)])
    assert render_hit(hit, NOW) == (
        "- Maya lives in London (2019-09-01 → 2026-03-01; replaced on 2026-03-02 by: "
        "Maya moved from London to Paris in March 2026)"
    )


def test_current_fact_shows_what_it_replaced() -> None:
    hit = Hit(fact=PARIS, score=1, parts={}, predecessors=[HistoryStep(fact=LONDON, link=LINK)])
    assert render_hit(hit, NOW) == (
        "- Maya moved from London to Paris in March 2026 (since 2026-03-01; before: "
        "Maya lives in London (2019-09-01 → 2026-03-01))"
    )


def test_retraction_and_correction_markers() -> None:
    retracted = fact(
        "r",
        "Maya has a cat.",
        valid_to=day(2026, 5, 1),
        known_to=day(2026, 5, 2),
        close_reason="retraction",
    )
    assert "retracted on 2026-05-02" in render_hit(Hit(fact=retracted, score=1, parts={}), NOW)
    wrong = fact(
        "w",
        "Maya lives in Lyon.",
        valid_to=day(2025, 1, 14),
        known_to=day(2025, 2, 1),
        close_reason="user_edit",
    )
    edit = SupersessionLink(
        new_id="paris", old_id="w", reason=SupersedeReason.USER_EDIT, at=day(2025, 2, 1)
    )
    line = render_hit(
        Hit(fact=wrong, score=1, parts={}, successors=[HistoryStep(fact=PARIS, link=edit)]), NOW
    )
    assert "never true" in line
    assert "corrected on 2025-02-01" in line


def test_conflict_shows_both_statements_with_dates() -> None:
    a = Hit(
        fact=fact("a", "Maya's sister is called Ana.", valid_from=day(2025, 3, 1)),
        score=1,
        parts={},
    )
    b = Hit(
        fact=fact("b", "Maya's sister is called Eva.", valid_from=day(2026, 2, 1)),
        score=1,
        parts={},
    )
    line = render_conflict(a, b, NOW)
    assert "Ana (since 2025-03-01)" in line
    assert "Eva (since 2026-02-01)" in line
    assert "Unresolved conflict" in line


def test_packing_respects_the_token_budget() -> None:
    hits = [
        Hit(
            fact=fact(f"f{i}", f"Fact number {i} " + "word " * (5 + i % 7)),
            score=1 - i / 100,
            parts={},
        )
        for i in range(60)
    ]
    packed, block, tokens = pack(
        hits, [], budget=120, now=NOW, title="Memories:", count=count_tokens
    )
    assert 0 < len(packed) < 60
    assert tokens == count_tokens(block) <= 120
    assert [h.fact.id for h in packed] == [h.fact.id for h in hits if h in packed]
    assert pack([], [], budget=100, now=NOW, title="Memories:", count=count_tokens) == ([], "", 0)


def test_the_question_is_embedded_without_its_names() -> None:
    from hmem.recall.query import analyse, dense_text

    assert dense_text("What pets does Maya have?") == "What pets does have?"
    assert dense_text("Where did Caroline's sister move?") == "Where did sister move?"
    assert dense_text("Maya's address?") == "Maya's address?"  # the first word stays
    assert dense_text("Who is Maya?") == "Who is"
    assert dense_text("Why is the dashboard API slow?") == "Why is the dashboard API slow?"
    assert dense_text("Where Maya?") == "Where Maya?"  # nothing but a name left: as asked
    assert analyse("What pets does Maya have?", datetime(2026, 1, 1, tzinfo=UTC)).dense == (
        "What pets does have?"
    )
