"""What a statement counts, however tersely ("three grandchildren", "our fifth grandchild
arrived", "my second marathon", "houseplants up to 8", "grandkids: 5"): the nouns a
number or an ordinal counts, named as one (``slots.json`` ``count_nouns``: kids, babies
and children are one count; otherwise the singular). The read side takes two statements
of the same person that count the same noun as values of one count
(``hmem.recall.newest``)."""

from __future__ import annotations

import functools
import re

from hmem.slots.frames import _NUMBERS, _ORDINALS, _singular

__all__ = ["counted"]

_AMOUNT = "|".join(sorted((*_NUMBERS, *_ORDINALS), key=len, reverse=True))
#: a number or an ordinal, at most two words (an adjective) before the noun it counts
_BEFORE = re.compile(
    rf"\b(?:{_AMOUNT}|\d+(?:st|nd|rd|th)?)\s+(?:[a-z-]+\s+){{0,2}}?(?P<n>[a-z]+s?)\b",
    re.IGNORECASE,
)
#: a note: the noun, then its number ("houseplants up to 8", "grandkids: 5")
_AFTER = re.compile(
    r"\b(?P<n>[a-z]+s)\s*(?::|—|-|→|up to|down to|now)\s*(?:now\s+)?\d+\b", re.IGNORECASE
)
_NOT_COUNTED = frozenset(
    "a an the of and or to in at on for my our his her their times time days day weeks week "  # noqa: SIM905
    "months month years year hours hour minutes minute am pm kg km miles cm percent".split()
)


@functools.lru_cache(maxsize=4096)
def counted(text: str) -> frozenset[str]:
    """The nouns ``text`` gives a number or an ordinal of ("three grandchildren",
    "our fifth grandchild": grandchild)."""
    nouns = {m.group("n") for m in _BEFORE.finditer(text)}
    nouns |= {m.group("n") for m in _AFTER.finditer(text)}
    return frozenset(_singular(n) for n in nouns if n.lower() not in _NOT_COUNTED)
