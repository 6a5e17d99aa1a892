"""A capitalised first word is a name when what follows is what a person does, not when
it is a verb of the user's own, "I" left out (hmem.slots.names)."""

from __future__ import annotations

import pytest

from hmem.slots import read_slot
from hmem.slots.names import starts_with_a_name


@pytest.mark.parametrize(
    ("text", "comma", "name"),
    [
        ("mia moved to rome", False, True),
        ("tom left the band", False, True),
        ("idris just started a new job", False, True),
        ("ines no longer lives in melbourne", False, True),
        ("sam can't wait", False, True),
        ("mia my sister moved", True, True),  # "Mia, my sister, moved"
        ("packed everything up and moved to montreal", False, False),
        ("said goodbye to the old machine", False, False),
        ("cut down to two coffees a day", False, False),
        ("finally caved and bought a pixel", False, False),
    ],
)
def test_a_name_is_followed_by_what_the_person_does(text: str, comma: bool, name: bool) -> None:
    assert starts_with_a_name(text.split(), comma) is name


def test_both_owner_readings_use_it() -> None:
    assert read_slot("Cut down to two coffees a day.").subject == "user"
    assert read_slot("Ines no longer lives in Melbourne.").subject == "ines"
