"""Rival values of one slot among the hits (hmem.recall.rivals): the newest first,
earlier ones marked, the same day an open conflict, multi-valued slots side by side."""

from __future__ import annotations

from hmem.recall.context import render_hit
from hmem.recall.models import Hit
from hmem.recall.rivals import rank_rivals
from tests.unit.recall.test_recall_scoring_and_context import NOW, day, fact


def _hits(*rows: tuple[str, str, tuple[int, int, int], float]) -> dict[str, Hit]:
    return {
        fid: Hit(
            fact=fact(fid, text, valid_from=day(*when), known_from=day(*when)),
            score=score,
            parts={"dense": score},
        )
        for fid, text, when, score in rows
    }


def test_the_newest_value_ranks_first_and_the_context_names_the_earlier() -> None:
    hits = _hits(
        ("lisbon", "Sam lives in Lisbon.", (2021, 3, 2), 0.8),
        ("porto", "Sam just moved to Porto.", (2026, 5, 4), 0.5),
        ("veg", "Sam is vegetarian.", (2024, 1, 1), 0.6),
    )
    assert rank_rivals(hits, lambda f: f.known_to is None) == []
    assert hits["porto"].score == 0.8 > hits["lisbon"].score > hits["veg"].score
    assert hits["lisbon"].newer_value == "porto"
    line = render_hit(hits["porto"], NOW)
    assert "earlier: Sam lives in Lisbon, said 2021-03-02" in line
    assert "an earlier value" in render_hit(hits["lisbon"], NOW)
    assert hits["veg"].score == 0.6 and hits["veg"].newer_value is None


def test_the_same_day_is_an_open_conflict() -> None:
    hits = _hits(
        ("a", "My favourite colour is teal.", (2026, 5, 4), 0.8),
        ("b", "Red is my favourite colour now.", (2026, 5, 4), 0.5),
    )
    assert rank_rivals(hits, lambda f: f.known_to is None) == [("a", "b")]
    assert hits["a"].score == 0.8 and hits["b"].score == 0.5


def test_values_that_add_up_and_other_people_are_no_rivals() -> None:
    hits = _hits(
        ("es", "I speak Spanish.", (2021, 1, 1), 0.8),
        ("de", "I speak German.", (2026, 1, 1), 0.5),
        ("me", "I live in Oslo.", (2021, 1, 1), 0.7),
        ("sis", "My sister lives in Bergen.", (2026, 1, 1), 0.4),
    )
    assert rank_rivals(hits, lambda f: f.known_to is None) == []
    assert [hits[i].score for i in ("es", "de", "me", "sis")] == [0.8, 0.5, 0.7, 0.4]


def test_a_value_said_to_have_ended_ranks_below_the_next_value_of_its_slot() -> None:
    hits = _hits(
        ("rex", "We have a parrot called Kiwi.", (2024, 1, 1), 0.8),
        ("died", "Sad news: Kiwi died last night.", (2025, 3, 1), 0.6),
        ("new", "We brought home a new parrot named Mango.", (2025, 6, 1), 0.4),
        ("hen", "We also keep a hen called Dot.", (2025, 7, 1), 0.3),
    )
    rank_rivals(hits, lambda f: f.known_to is None)
    assert hits["new"].score == 0.8 > hits["rex"].score
    assert hits["rex"].newer_value == "new"
    assert hits["hen"].score == 0.3 and hits["hen"].newer_value is None  # another slot


def test_a_new_partner_ranks_above_the_ending_of_the_last() -> None:
    hits = _hits(
        ("end", "Noa and I are no longer together.", (2025, 3, 1), 0.7),
        ("new", "Ilan is my boyfriend now.", (2025, 6, 1), 0.4),
    )
    rank_rivals(hits, lambda f: f.known_to is None)
    assert hits["new"].score == 0.7 > hits["end"].score
