"""Government identifiers: SSNs, NINOs, national ids with a checksum (France's NIR,
Germany's Steuer-ID) and numbers stated as an id ("my passport number is ...")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum.de import idnr
from stdnum.fr import nir

from hmem.extract._patterns._base import _I, Clues, Span, _digit_count

# --- government identifiers ------------------------------------------------------------

_SSN = re.compile(r"(?<![\d-])(?!000)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_NINO = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])")
_NUMBER = r"(?:number|no\.?|num|#|id)"
_ID_STRONG = (  # names that are the number itself: the linking verb may be left out
    rf"ssn|itin|nino|sin|nhs\s+{_NUMBER}|medicare\s+{_NUMBER}|social\s+security\s+{_NUMBER}"
    r"|social\s+insurance\s+number"
    rf"|national\s+(?:insurance|identity|id)\s+(?:card\s+)?{_NUMBER}|tax\s+(?:payer\s+)?id"
    rf"(?:entification)?(?:\s+{_NUMBER})?|aadhaar(?:\s+{_NUMBER})?|passport\s+{_NUMBER}"
    rf"|(?:driver'?s?|driving)\s+licen[cs]e\s+{_NUMBER}|dl\s*{_NUMBER}"
)
_ID_WEAK = (
    r"social\s+security|national\s+(?:insurance|id)|passport"
    r"|(?:driver'?s?|driving)\s+licen[cs]e"
)
_LINK = r"\s*(?:(?:is|was|reads)\b|[:=#])"
_ID_KEYWORD = re.compile(
    rf"(?<![A-Za-z])(?:(?:{_ID_STRONG})(?![A-Za-z])(?:{_LINK})?|(?:{_ID_WEAK})(?![A-Za-z]){_LINK})"
    r"\s*:?\s*",
    _I,
)
_ID_TOKEN = re.compile(r"[A-Za-z0-9-]+")
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{2,4}")


def _id_value(text: str, pos: int) -> Span | None:
    """The identifier after "passport number is": digit tokens, plus a letter prefix/suffix."""
    tokens: list[re.Match[str]] = []
    while (m := _ID_TOKEN.match(text, pos)) is not None:
        word = m.group()
        has_digit = any(c.isdigit() for c in word)
        nxt = _ID_TOKEN.match(text, m.end() + 1) if text[m.end() : m.end() + 1] == " " else None
        prefix = (
            not tokens
            and word.isalpha()
            and len(word) <= 3
            and nxt is not None
            and any(c.isdigit() for c in nxt.group())
        )  # "QQ 12 34 56 C"
        suffix = len(word) == 1 and word.isalpha() and bool(tokens)
        if not (has_digit or prefix or suffix):
            break
        tokens.append(m)
        if suffix or nxt is None:
            break
        pos = m.end() + 1
    if not tokens:
        return None
    value = text[tokens[0].start() : tokens[-1].end()]
    if _digit_count(value) < 6 or _DATE.fullmatch(value):
        return None
    return tokens[0].start(), tokens[-1].end()


# A French NIR (INSEE number) carries a mod-97 key: checked bare. A German Steuer-ID has
# only a mod-11 check digit, which one 11-digit phone number in ten also passes: it needs
# its name nearby.
_NIR = re.compile(r"(?<![\w.-])[12](?:[ .-]?[0-9AB]){12}[ .-]?\d{2}(?![\w])", _I)
_ELEVEN = re.compile(r"(?<![\d.-])\d{2}[ .-]?\d{3}[ .-]?\d{3}[ .-]?\d{3}(?![\d-])")
_STEUER_WORD = re.compile(
    r"steuer|identifikationsnummer|\bidnr\b|\btin\b|tax\s*(?:payer\s*)?id", _I
)


def _compact(value: str) -> str:
    return re.sub(r"[ .-]", "", value)


def _national_ids(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _NIR.finditer(text):
        if nir.is_valid(_compact(m.group())):
            yield m.span()
    for m in _ELEVEN.finditer(text):
        near = _STEUER_WORD.search(text, max(0, m.start() - 80), m.start())
        if near is not None and idnr.is_valid(_compact(m.group())):
            yield m.span()


def _stated_ids(clues: Clues) -> Iterator[Span]:
    text = clues.text
    for m in _ID_KEYWORD.finditer(text):
        span = _id_value(text, m.end())
        if span is not None:
            yield span
