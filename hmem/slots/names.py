"""Whether a capitalised word that starts a statement is a name: "Mia moved", "Tom left",
"Idris just started a new job" (a verb follows), not "Packed everything up", "Said goodbye
to the old machine", "Cut down to two coffees a day" (a first-person statement without
"I": its object follows) or "Finally caved". Words only; both owner readings use it
(``hmem.slots.whose``, ``hmem.slots.frames``)."""

from __future__ import annotations

import re

__all__ = ["WORD", "starts_with_a_name"]

#: A word, not the letters of a model name ("a Hyundai i10", "a BMW i3": no "I" there).
WORD = re.compile(r"\b[A-Za-z][A-Za-z'-]*(?![\w])")
_COMMA = re.compile(r"\s*\w+,")

#: After a name that starts a statement comes what the person does ("Mia moved",
#: "Tom left", "Jo drives", "Mia finally moved", "Mia and Sam"); after a verb that starts
#: one (a first-person statement without "I": "Packed everything up", "Said goodbye to
#: the old machine") comes its object.
_NAME_FOLLOWERS = frozenset(
    (  # noqa: SIM905
        "is was has had have does did will would can could should may might must and or "
        "got get gets left went came took made became began bought sold quit won lost "
        "found gave said told met ran drove chose let put set kept can can't won't didn't "
        "doesn't isn't wasn't hasn't haven't hadn't wouldn't couldn't shouldn't will "
    ).split()
)

_NAME_ADVERBS = frozenset(
    "just recently finally also now still already never always really actually then "  # noqa: SIM905
    "officially suddenly eventually honestly basically apparently luckily sadly "
    "unfortunately fortunately hopefully obviously seriously literally currently lately "
    "sometimes no not longer".split()
)


def starts_with_a_name(text: str) -> bool:
    """Whether the capitalised word that starts ``text`` is a name; a comma after it
    makes it one ("Mia, my sister, moved": a name or the one spoken to)."""
    lowered = [w.lower() for w in WORD.findall(text)]
    if not lowered:
        return False
    if lowered[0] in _NAME_ADVERBS:  # "Finally caved and bought a Pixel 6a"
        return False
    if _COMMA.match(text):
        return True
    # "Idris just started a new job", "Mia finally moved": past the adverbs
    after = next((w for w in lowered[1:] if w not in _NAME_ADVERBS), None)
    return (
        after is None or after in _NAME_FOLLOWERS or after.endswith(("s", "ed", "'s", "'ll", "'d"))
    )
