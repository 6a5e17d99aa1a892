"""Payment cards: Luhn-valid numbers of 13 to 19 digits, and a CVV next to a card word."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hmem.extract._patterns._base import _I, Clues, Span, luhn_ok

# --- payment cards ---------------------------------------------------------------------

_DIGIT_RUN = re.compile(r"(?<![\d+.,])\d+(?:[ .-]\d+)*")
_DIGITS = re.compile(r"\d+")
# a uuid's digit groups ("be527206-0411-4421-8440-4b13d9856b3d") are an id, not a card;
# so are those of a hex digest or a uuid written without dashes: a token of 20 hex
# characters or more with a letter in it ("adk-2f5e43184617263949017a4c01b2d3e4"), longer
# than any card and not one glued to a word
_UUID = re.compile(
    r"(?<![0-9A-Za-z])(?:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
    r"|(?=[0-9]*[a-f])[0-9a-f]{20,})(?![0-9A-Za-z])",
    _I,
)
_CVV = re.compile(
    r"(?<![A-Za-z])(?:cvv2?|cvc2?|csc|card\s+security\s+code)\s*(?:is|was|:|=|#)?\s*"
    r"(?P<v>\d{3,4})(?!\d)",
    _I,
)


def _cards(clues: Clues) -> Iterator[Span]:
    text = clues.text
    ids = [m.span() for m in _UUID.finditer(text)]
    for run in _DIGIT_RUN.finditer(text):
        if any(start <= run.start() < end for start, end in ids):
            continue
        groups = list(_DIGITS.finditer(text, run.start(), run.end()))
        # Longest prefix first: "4111 1111 1111 1111 12/27" still finds the card.
        for k in range(min(len(groups), 19), 0, -1):  # 19 digits need at most 19 groups
            window = groups[:k]
            digits = "".join(g.group() for g in window)
            if not 13 <= len(digits) <= 19:
                continue
            # Cards are written in groups of 4-6 (or digit by digit); "112-4567890-1234567"
            # is an order number.
            sizes = [len(g.group()) for g in window]
            if k > 1 and set(sizes) != {1} and any(not 4 <= n <= 6 for n in sizes[:-1]):
                continue
            # Issuers start with 2-6; a 13-digit millisecond timestamp starts with 1.
            if digits[0] in "23456" and luhn_ok(digits):
                yield window[0].start(), window[-1].end()
                break


def _cvv(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _CVV.finditer(text):
        yield m.span("v")
