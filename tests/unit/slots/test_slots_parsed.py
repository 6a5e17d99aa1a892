"""Slot reading from spaCy's dependency parse (hmem.slots.parsed), where no phrasing of
the data names the slot: the subject is whom the statement is about, the value the
element left when the slot is masked, on either side. Sentences written for these
tests."""

from __future__ import annotations

import pytest

from hmem.slots import parser_pipeline, read_slot, rivals

pytestmark = pytest.mark.skipif(
    parser_pipeline() is None, reason="no trained spaCy pipeline installed"
)


@pytest.mark.parametrize(
    ("text", "subject", "slot", "value"),
    [
        ("Everyone at work knows me as Teo.", "user", "name", "teo"),
        ("Kindly refer to me as Soren.", "user", "name", "soren"),
        ("I changed my name last year; it's Wren now.", "user", "name", "wren"),
        ("The city I love most is Lisbon.", "user", "favourite:city", "lisbon"),
        ("Hummus is the snack I like best.", "user", "favourite:snack", "hummus"),
        ("My top band has long been Blur.", "user", "favourite:band", "blur"),
        ("I like rye best of all the breads.", "user", "favourite:bread", "rye"),
        ("Omar loves jazz more than any other music.", "omar", "favourite:music", "jazz"),
        ("My snack of choice is popcorn.", "user", "favourite:snack", "popcorn"),
        ("I now call Lyon home.", "user", "residence", "lyon"),
        ("Tomorrow is my first day at Vantage.", "user", "employer", "vantage"),
        ("My cousin is called Anouk.", "user.cousin", "name", "anouk"),
        ("We rescued a kitten named Pepper.", "user", "pet:kitten", "pepper"),
        # a value let go is not the value; the kind keeps its compound
        ("My favourite band used to be Blur, but now it's Pulp.", "user", "favourite:band", "pulp"),
        (
            "I adore pistachio more than any other ice cream flavour.",
            "user",
            "favourite:ice cream flavour",
            "pistachio",
        ),
    ],
)
def test_the_parse_reads_subject_slot_value(text: str, subject: str, slot: str, value: str) -> None:
    reading = read_slot(text)
    assert (reading.subject, reading.slot, reading.value) == (subject, slot, value)
    assert reading.known


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        ("People call me Ren.", "Friends know me as Kai these days.", True),
        ("My favourite fruit is mango.", "The fruit I like most is papaya now.", True),
        ("Papaya is the fruit I like most.", "My favourite fruit is now guava.", True),
        ("I play the piano at church.", "I sold the piano and switched to the violin.", True),
        ("I live in Bern.", "My uncle now calls Basel home.", False),  # another person
        ("My name is Ilya.", "My brother is called Pavel.", False),  # another person
        ("I play the piano.", "I also play the flute.", False),  # an addition
    ],
)
def test_rivals_read_by_the_parse(older: str, newer: str, expected: bool) -> None:
    assert rivals(read_slot(newer), read_slot(older)) is expected


@pytest.mark.parametrize(
    "text",
    [
        "These are shoes that work for any trail.",  # a thing's, not anyone's
        "This place is lovely.",  # an adjective is no value, "place" no one's
        "After losing my keys, I walked home.",
        "My favourite band used to be Blur.",  # only a value let go
        "Tim went to a place in London on a tour.",  # no one's home
        "John joined a gym near his office.",  # no employer
    ],
)
def test_the_parse_reads_no_slot_where_there_is_none(text: str) -> None:
    reading = read_slot(text)
    assert not reading.known
