"""A capitalised first word is a name when what follows is what a person does, not when
it is a verb of the user's own, "I" left out (hmem.slots.names)."""

from __future__ import annotations

import pytest

from hmem.slots import read_slot
from hmem.slots.names import starts_with_a_name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Mia moved to Rome", True),
        ("Tom left the band", True),
        ("Idris just started a new job", True),
        ("Ines no longer lives in Melbourne", True),
        ("Sam can't wait", True),
        ("Mia, my sister, moved", True),  # a comma: a name, or the one spoken to
        ("Packed everything up and moved to Montreal", False),
        ("Said goodbye to the old machine", False),
        ("Cut down to two coffees a day", False),
        ("Finally caved and bought a Pixel", False),
        ("Mia my sister moved", False),  # no comma: "my" is no verb
    ],
)
def test_a_name_is_followed_by_what_the_person_does(text: str, name: bool) -> None:
    assert starts_with_a_name(text) is name


def test_both_owner_readings_use_it() -> None:
    assert read_slot("Cut down to two coffees a day.").subject == "user"
    assert read_slot("Ines no longer lives in Melbourne.").subject == "ines"
