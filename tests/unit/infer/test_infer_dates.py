"""Dates read from the words (hmem.slots.dates) and the date corpus' score."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hmem.infer.dates_eval import load, main, score
from hmem.slots.dates import read_interval

SAID = datetime(2026, 5, 20, 14, 30, tzinfo=UTC)


def _day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_month_precision_is_kept_never_a_day() -> None:
    found = read_interval("Maya started learning Japanese in May 2026.", SAID)
    assert (found.valid_from, found.from_precision) == (_day("2026-05-01"), "month")
    assert found.valid_to is None and found.cue == "May 2026"


def test_ranges_since_and_until() -> None:
    span = read_interval("I lived in Paris from 2015 to 2020.", SAID)
    assert (span.valid_from, span.valid_to) == (_day("2015-01-01"), _day("2020-01-01"))
    assert (span.from_precision, span.to_precision) == ("year", "year")
    until = read_interval("I am staying with my parents until June.", SAID)
    assert until.valid_from is None and until.valid_to == _day("2026-06-01")
    assert read_interval("I have lived here since 2019.", SAID).from_precision == "year"


def test_relative_to_observed_at() -> None:
    ago = read_interval("Two weeks ago I quit my job.", SAID)
    assert (ago.valid_from, ago.from_precision) == (_day("2026-05-04"), "week")  # a Monday
    nxt = read_interval("We will move next September.", SAID)
    assert (nxt.valid_from, nxt.from_precision) == (_day("2026-09-01"), "month")
    assert read_interval("I started a job last month.", SAID).valid_from == _day("2026-04-01")


def test_counts_names_and_bounds_are_not_dates() -> None:
    for text in (
        "I paid 2000 euros for the bike.",
        "May is my favourite aunt.",
        "I have to finish before 2027.",
        "Maya moved from Paris to Berlin.",
    ):
        assert read_interval(text, SAID).empty, text


def test_corpus_is_large_and_scores_at_least_95_percent() -> None:
    for part in ("dev", "heldout"):
        cases = load(part)
        exact, _ = score(cases)
        assert exact / len(cases) >= 0.95, part
    assert len(load("dev")) + len(load("heldout")) >= 300


def test_the_command_prints_the_misses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["heldout"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("heldout: ") and "exact" in out


def test_a_weekly_habit_is_no_date() -> None:
    """ "on Tuesday evenings" / "on Tuesdays" say when something recurs, not when it began
    (the README tour's lessons were read as starting the Tuesday before)."""
    said = datetime(2026, 6, 2, 9, tzinfo=UTC)
    for text in (
        "Maya's Japanese lessons are on Tuesday evenings.",
        "She swims on Tuesdays.",
        "We play chess on Sunday mornings.",
    ):
        assert read_interval(text, said).valid_from is None, text
    once = read_interval("I met Tom on Tuesday evening.", said)
    assert (once.valid_from, once.from_precision) == (_day("2026-05-26"), "day")


def test_a_birthdays_day_is_its_value_not_when_it_began() -> None:
    """ "My birthday is on 30 August", said in March: the day recurs every year; it is
    no world time the statement began at (it had been read as 30 August of this year,
    months after it was said)."""
    for text in (
        "My birthday is on 30 August.",
        "I now celebrate my birthday on 2 February, my official date.",
        "Our wedding anniversary is August 2.",
        "My birthday is the 2nd of May.",
    ):
        assert read_interval(text, SAID).valid_from is None, text
    # with a year it is a day that happened; other statements keep their dates
    assert read_interval("I was born on 25 December 1990.", SAID).valid_from == datetime(
        1990, 12, 25, tzinfo=UTC
    )
    assert read_interval("I moved to Lyon on 3 March.", SAID).valid_from is not None
