"""Whose a value is, clause by clause (``hmem.infer.owners``), and the number rule of a
long chat turn that rests on it: sentences written for this, not taken from a
benchmark."""

from __future__ import annotations

import pytest

from hmem.infer.changes import read_claims
from hmem.infer.owners import value_owner
from hmem.infer.quantities import changed_value, read_quantities
from hmem.infer.write import _same_owner


def owner_of(sentence: str, value: str) -> str | None:
    [q] = [q for q in read_quantities(sentence) if q.value == value]
    return value_owner(q.sentence, q.at, "fallback")[0]


@pytest.mark.parametrize(
    ("sentence", "value", "expected"),
    [
        ("Can you help me, I've recently increased my sessions to 12 problems.", "12", "user"),
        ("My sister now has 3 kids and a dog.", "3", "user.sister"),
        ("Tom's brother recently moved his deadline to 14 days.", "14", "tom.brother"),
        ("He recently improved his best time to 250ms.", "250", None),
        # a relative pronoun stands for its noun; the clause above names the user
        ("I'm tuning the page load time, which has now dropped to 400ms.", "400", "user"),
        # no clause names anybody: the text's owner
        ("The coverage has now reached 78%.", "78", "fallback"),
    ],
)
def test_the_clause_says_whose_a_value_is(sentence: str, value: str, expected: str) -> None:
    assert owner_of(sentence, value) == expected


def changed_in_turn(new: str, old: str) -> str | None:
    a, b = read_claims([new, old])
    return changed_value(read_quantities(new), read_quantities(old), _same_owner(new, a, old, b))


def test_a_long_turn_changes_the_users_value_in_its_own_clause() -> None:
    old = "I wonder why my reading count went well after finishing 8 novels this term."
    new = (
        "Could you suggest a plan for next month, because I've recently raised my count "
        "to 11 novels this term and I want to keep the pace?"
    )
    assert changed_in_turn(new, old) == "novel: 8 -> 11 (recently)"


def test_another_persons_value_closes_nothing() -> None:
    old = "I've finished 8 novels this term and I keep a reading log."
    new = (
        "Could you help me plan gifts, because my sister recently raised her count "
        "to 11 novels this term?"
    )
    assert changed_in_turn(new, old) is None


def test_two_clauses_naming_different_measures_are_not_one_value() -> None:
    old = "I wonder how my quiz score improved from 60% to 75% on fractions this month."
    new = "I wonder how my accuracy on fraction drills improved from 70% to 85% this month."
    assert changed_in_turn(new, old) is None
    again = "I wonder how my quiz score on fractions improved from 75% to 90% this month."
    assert changed_in_turn(again, old) == "%: 75 -> 90 (improved)"
