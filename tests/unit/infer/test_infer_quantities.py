"""Numbers that changed (``hmem.infer.quantities``), on sentences written for this: a
changed value of the same measure closes, a goal, a list, a version, another measure or
the same value does not."""

from __future__ import annotations

import pytest

from hmem.infer.changes import read_claims
from hmem.infer.quantities import change_sentences, changed_value, read_quantities


def changed(new: str, old: str) -> str | None:
    return changed_value(read_quantities(new), read_quantities(old))


@pytest.mark.parametrize(
    ("old", "new", "cue"),
    [
        (
            "My blog's newsletter has 340 subscribers and goes out every Friday.",
            "The newsletter of my blog now has 410 subscribers.",
            "subscriber: 340 -> 410 (now)",
        ),
        (
            "The checkout page load time of my shop is 900ms on mobile.",
            "I cut the checkout page load time of my shop to 450ms on mobile.",
            "ms: 900 -> 450 (cut)",
        ),
        (
            "Our team's launch deadline is June 12 for the mobile release.",
            "We moved the launch deadline of the mobile release to June 30.",
            "release: jun-12 -> jun-30 (moved)",
        ),
        (
            "My rent for the flat in Leeds is $1,200 a month.",
            "The rent for my Leeds flat increased to $1,350 a month.",
            "$: 1200 -> 1350 (increased)",
        ),
        (
            "The Postgres replica lag of the reporting cluster was 40 seconds.",
            "The reporting cluster's Postgres replica lag has dropped to 5 seconds.",
            "second: 40 -> 5 (dropped)",
        ),
    ],
)
def test_a_changed_value_of_the_same_measure_is_read(old: str, new: str, cue: str) -> None:
    assert changed(new, old) == cue


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a goal, a wish, a condition
        (
            "My blog's newsletter has 340 subscribers.",
            "I want my blog's newsletter to reach 1000 subscribers.",
        ),
        ("My blog's newsletter has 340 subscribers.", "If my newsletter grew to 500 subscribers…"),
        # another measure that shares the unit
        (
            "The checkout page load time of my shop is 900ms.",
            "The search API of the warehouse service now answers in 80ms.",
        ),
        # a list of values is no single value
        (
            "The triangle has sides 9, 12, 15 cm.",
            "The new triangle sides are now 10 cm, 15 cm, and 20 cm.",
        ),
        # versions and years are no quantities
        (
            "The shop runs on Django 4.2 since 2021.",
            "The shop now runs on Django 5.0 since 2024.",
        ),
        # the same value: nothing changed
        (
            "My blog's newsletter has 340 subscribers.",
            "The newsletter of my blog now has 340 subscribers.",
        ),
        # no cue: two numbers of the same thing, nothing says which is newer
        (
            "My blog's newsletter has 340 subscribers.",
            "My blog's newsletter has 410 subscribers.",
        ),
        # a delta is no level
        (
            "My blog's newsletter has 340 subscribers.",
            "My blog's newsletter subscribers recently grew by 20 subscribers.",
        ),
    ],
)
def test_no_change_is_read(old: str, new: str) -> None:
    assert changed(new, old) is None


def test_a_bigger_count_with_no_cue_closes_nothing_and_a_cue_does() -> None:
    old = "I've completed 12 area calculation problems for my geometry course."
    assert not changed("I've completed 15 area calculation problems for my geometry course.", old)
    assert changed(
        "I've now completed 15 area calculation problems for my geometry course.", old
    ) == ("problem: 12 -> 15 (now)")


def test_code_is_not_read_and_the_changed_sentences_are_named() -> None:
    text = (
        "The rate limit of my weather API key is now 1,200 calls per day. "
        "```js\nconst limit = 1000; // calls per day\n```"
    )
    quantities = read_quantities(text)
    assert [(q.value, q.unit) for q in quantities] == [("1200", "call/day")]
    assert change_sentences(text, quantities) == [
        "The rate limit of my weather API key is now 1,200 calls per day."
    ]


def test_a_latex_left_is_no_ending() -> None:
    [claim] = read_claims([r"I think it's \(\left(\frac{1}{2}\right)^2\). Let's move on!"])
    assert claim.ends is None


def test_a_change_word_belongs_to_the_next_value_not_one_past_another() -> None:
    said = read_quantities("I'm glad my increased quiz score went from 75% to 92% after 15 drills.")
    assert [(q.value, q.cue) for q in said] == [("75", None), ("92", "increased"), ("15", None)]
