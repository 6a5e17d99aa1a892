"""A note ("car: VW Golf", "new bank: Starling") reads as "my <key> is <value>"; a
lead-in and a sentence, or a clause on either side of the colon, is no note."""

from __future__ import annotations

import pytest

from hmem.slots import read_slot, same_slot
from hmem.slots.notes import as_sentence


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("car: VW Golf", "my car is VW Golf"),
        ("car: now a Polestar 2", "my car is now a Polestar 2"),
        ("Car - Polestar 2 now", "my car is Polestar 2 now"),
        ("new bank: Starling", "my bank is now Starling"),
        ("Heads-up, new home city: Ghent.", "my home city is now Ghent."),
        ("fyi, new phone network: Lebara", "my phone network is now Lebara"),
        ("New usual drink alert: ginger beer!", "my usual drink is now ginger beer!"),
        ("my sister's car: Polestar 2", "my sister's car is Polestar 2"),
        # an arrow, "(was X)", "X → Y", "X out, Y in": a new value, and the one it replaced
        ("GP -> Dr Okafor", "my gp is now Dr Okafor"),
        ("nickname → Tash (was Robbie)", "my nickname is now Tash instead of Robbie"),
        ("team: data → platform", "my team is now platform instead of data"),
        (
            "bank update: Barclays out, Nationwide in",
            "my bank is now Nationwide instead of Barclays",
        ),
        # no note: a lead-in and a sentence, a clause as the key or as the value
        ("Quick update: my barber is Tony now", None),
        ("Update your notes: my favourite food is lasagne these days.", None),
        ("We got a new boss: Björn", None),
        ("car: I sold it", None),
        ("Correction: it is March 13", None),
        ("The weather was lovely this weekend.", None),
    ],
)
def test_a_note_reads_as_a_sentence(text: str, sentence: str | None) -> None:
    assert as_sentence(text) == sentence


def test_a_note_fills_the_slot_a_sentence_does() -> None:
    note, sentence = read_slot("car: Polestar 2 now"), read_slot("My car is a VW Golf.")
    assert note.subject == "user" and note.slot == "car" and note.value == "polestar 2"
    assert same_slot(note, sentence)
    assert read_slot("Heads-up, new home city: Ghent.").subject == "user"


def test_a_note_and_a_sentence_say_which_value_they_replaced() -> None:
    assert read_slot("nickname → Tash (was Robbie)").replaced == {"robbie"}
    assert read_slot("weigh-in: 73 kg (was 70 kg)").replaced == {"70 kg"}
    out_in = read_slot("Radiohead is out, Arctic Monkeys is in, that's my favourite band now")
    assert out_in.replaced == {"radiohead"}
    assert read_slot("I play padel too").added
    assert not read_slot("I'm at Ocado now, Deliveroo had too many layoffs").added
