"""Bank identifiers: IBANs (ISO 13616 mod 97), US routing numbers (ABA checksum),
account numbers and sort codes next to a bank word."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hmem.extract._patterns._base import (
    _I,
    Clues,
    Span,
    _digit_count,
    _starting_within,
    aba_ok,
    iban_ok,
)

# --- bank identifiers ------------------------------------------------------------------

_IBAN_START = re.compile(r"\b[A-Za-z]{2}\d{2}")
_NINE = re.compile(r"(?<!\d)\d{9}(?!\d)")
_ROUTING_WORD = re.compile(r"(?<![A-Za-z])(?:routing|aba|rtn|transit)(?![A-Za-z])", _I)
_BANK_CONTEXT = re.compile(
    r"(?<![A-Za-z])(?:routing|aba|rtn|sort\s*code|iban|bank|checking|chequing|savings"
    r"|current\s+account|swift|bic)(?![A-Za-z])",
    _I,
)
_ACCOUNT_NUMBER = re.compile(
    r"(?<![A-Za-z])(?:account|acct|a/c)s?\s+(?:number|no\.?|num|#)s?(?![A-Za-z])", _I
)
_ACCOUNT_LINKED = re.compile(
    r"(?<![A-Za-z])(?:account|acct|a/c)\s*(?:(?:is|was)\b|[:=#])?\s*(?P<v>\d[\d -]*\d)", _I
)
_SORT_CODE = re.compile(
    r"(?<![A-Za-z])sort\s*code\s*(?:(?:is|was)\b|[:=])?\s*(?P<v>\d{2}[- ]?\d{2}[- ]?\d{2})(?!\d)",
    _I,
)
_ACCOUNT_VALUE = re.compile(r"(?<![\d.,])\d(?:[\d -]*\d)?")


def _ibans(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _IBAN_START.finditer(text):
        i, compact, ends = m.end(), m.group(), []
        while i < len(text) and len(compact) < 34:
            if text[i].isascii() and text[i].isalnum():
                compact += text[i]
                i += 1
                if i == len(text) or not text[i].isalnum():
                    ends.append((i, compact))
            elif text[i] in " -" and i + 1 < len(text) and text[i + 1].isalnum():
                i += 1
            else:
                break
        # The walk may swallow the next word ("... 7654 32 IS mine"): try the longest valid one.
        for end, candidate in reversed(ends):
            if iban_ok(candidate):
                yield m.start(), end
                break


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, reach: int = 150) -> bool:
    return pattern.search(text, max(0, start - reach), min(len(text), end + reach)) is not None


def _bank_numbers(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _NINE.finditer(text):
        if aba_ok(m.group()) and _ROUTING_WORD.search(text, max(0, m.start() - 80), m.start()):
            yield m.span()
    values = list(_ACCOUNT_VALUE.finditer(text))
    starts = [v.start() for v in values]
    for m in _SORT_CODE.finditer(text):
        yield m.span("v")
        for v in _starting_within(values, starts, m.end(), 60):
            if _digit_count(v.group()) == 8:  # UK account numbers are 8 digits
                yield v.span()
    if not _BANK_CONTEXT.search(text):
        return
    # "routing and account numbers are 021000021 and 12345678": every number shortly after.
    for kw in _ACCOUNT_NUMBER.finditer(text):
        for v in _starting_within(values, starts, kw.end(), 60):
            if 6 <= _digit_count(v.group()) <= 17 and _near(_BANK_CONTEXT, text, *v.span()):
                yield v.span()
    for m in _ACCOUNT_LINKED.finditer(text):
        if 6 <= _digit_count(m.group("v")) <= 17 and _near(_BANK_CONTEXT, text, *m.span()):
            yield m.span("v")
