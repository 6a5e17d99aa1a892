"""The context block never shows a relative date as if it were current (issue 49 item
11): the date each relative phrase meant when it was said stands beside it."""

from __future__ import annotations

from datetime import UTC, datetime

from hmem.models import Fact
from hmem.recall.context import dated, render_hit
from hmem.recall.models import Hit
from hmem.slots.relative import relative_dates

SAID = datetime(2026, 11, 9, 9, tzinfo=UTC)  # a Monday
LATER = datetime(2026, 12, 20, 9, tzinfo=UTC)  # the reader's "now", weeks on


def _fact(text: str, **kw: object) -> Fact:
    data: dict[str, object] = {
        "id": "f", "user_id": "u", "text": text, "category": "episodic", "importance": 5,
        "hash": "f", "valid_from": SAID, "known_from": SAID, "ingested_at": SAID,
    }  # fmt: skip
    data.update(kw)
    return Fact.model_validate(data)


def test_a_relative_phrase_reads_with_the_date_it_meant() -> None:
    rex = _fact("My dog Rex died last week.", valid_from=datetime(2026, 11, 2, tzinfo=UTC))
    line = render_hit(Hit(fact=rex, score=1, parts={}), LATER)
    assert line == "- My dog Rex died last week [week of 2026-11-02] (since 2026-11-02)"


def test_each_kind_of_relative_phrase() -> None:
    cases = {
        "I saw Ana yesterday": "I saw Ana yesterday [2026-11-08]",
        "I start the new job tomorrow": "I start the new job tomorrow [2026-11-10]",
        "We moved here three years ago": "We moved here three years ago [2023]",
        "Our trip is next month": "Our trip is next month [2026-12]",
        "I had the flu last Friday": "I had the flu last Friday [2026-11-06]",
        "I feel great today": "I feel great today [2026-11-09]",
    }
    for text, want in cases.items():
        assert dated(text, SAID) == want, text


def test_absolute_dates_and_habits_are_left_alone() -> None:
    for text in (
        "Maya moved from London to Paris in March 2026",
        "The lease ends on 2027-03-01",
        "Maya's Japanese lessons are on Tuesday evenings",
        "Maya has a serious peanut allergy",
        "I have lived here for three years",
        "I got a bike in May",
    ):
        assert dated(text, SAID) == text
        assert relative_dates(text, SAID) == ()


def test_the_history_line_of_a_replaced_fact_is_dated_too() -> None:
    old = _fact(
        "I started a new job today.",
        valid_to=datetime(2026, 12, 1, tzinfo=UTC),
        known_to=datetime(2026, 12, 1, tzinfo=UTC),
        close_reason="retraction",
    )
    line = render_hit(Hit(fact=old, score=1, parts={}), LATER)
    assert line.startswith("- I started a new job today [2026-11-09] (2026-11-09 → 2026-12-01")
