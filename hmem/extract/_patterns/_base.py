"""What every kind of secret shares: the kinds, the normalised text and its map back,
the gates (Clues, Needs) and the checksums."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
from stdnum import iban, luhn
from stdnum.us import rtn

from hmem.extract._fold import LOOKALIKES, fold_positions

CREDENTIAL = "credential"
PAYMENT_CARD = "payment_card"
BANK_ACCOUNT = "bank_account"
GOVERNMENT_ID = "government_id"
DO_NOT_REMEMBER = "do_not_remember"
# Order is priority: a sentence holding two kinds is reported as the earlier one.
KINDS = (CREDENTIAL, PAYMENT_CARD, BANK_ACCOUNT, GOVERNMENT_ID, DO_NOT_REMEMBER)

Span = tuple[int, int]
Finder = Callable[["Clues"], Iterator[Span]]  # a finder reads the text off its Clues
_I = re.IGNORECASE

_NORMALISE = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u00a0": " ", "\u2011": "-", "\u2013": "-", "\u2212": "-"}
)
# Invisible characters that split a number or a word for a reader-less regex ("4111\u200b1111").
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def normalise_map(text: str) -> tuple[str, list[int]]:
    """The text as the rules read it, and for each of its characters the index of the
    original character it came from (plus one past the end).

    NFKC folds full-width digits and letters, ligatures and compatibility forms to plain
    ones ("４１１１" is 4111); Latin look-alikes of other scripts in a word that is Latin in
    disguise become the Latin letter ("pаssword" with a Cyrillic а, see ``_fold``);
    invisible characters are dropped; curly quotes and Unicode dashes become ASCII; the
    spaces of a run of single characters ("A K I A I O S F ...") are dropped, so a key
    spelled out reads as the key. The map lets a span found here redact exactly the
    original.
    """
    gaps = _spaced_gaps(text)
    if text.isascii() and not gaps:  # every rule above leaves ASCII as it is: skip the walk
        return text, list(range(len(text) + 1))
    fold = fold_positions(text) if not text.isascii() else set()
    out: list[str] = []
    where: list[int] = []
    pos = 0  # ASCII runs between the other characters are copied as they are (see above)
    for i in sorted(gaps.union(m.start() for m in _NOT_ASCII.finditer(text))):
        ch = text[i]
        out.append(text[pos:i])
        where.extend(range(pos, i))
        pos = i + 1
        if ch in _INVISIBLE or i in gaps:
            continue
        folded = (
            LOOKALIKES[ch] if i in fold else unicodedata.normalize("NFKC", ch).translate(_NORMALISE)
        )
        out.append(folded)
        where.extend([i] * len(folded))
    out.append(text[pos:])
    where.extend(range(pos, len(text) + 1))
    return "".join(out), where


# Eight or more single characters, each followed by one space: a key or a number spelled
# out. Prose has no such run ("the cat A B C" has three); a card written digit by digit is
# one, and reads as the same number without its spaces.
_SPACED_RUN = re.compile(r"(?<![A-Za-z0-9])(?:\S )(?:\S ){6,}\S(?=[\s.,;:!?)]|$)")


_SPACED_HINT = re.compile(r" \S \S \S \S \S \S \S")


def _spaced_gaps(text: str) -> set[int]:
    """The indexes of the spaces inside runs of single characters."""
    # A gate with a literal first character, which re finds fast: the second to the eighth
    # character of every such run, each after its space.
    if _SPACED_HINT.search(text) is None:
        return set()
    gaps: set[int] = set()
    for m in _SPACED_RUN.finditer(text):
        gaps.update(range(m.start() + 1, m.end(), 2))
    return gaps


def normalise(text: str) -> str:
    return normalise_map(text)[0]


# --- gates -----------------------------------------------------------------------------

# Most texts are prose that no rule can touch, yet every finder's regexes scan all of it.
# A gate is a necessary condition read off a finder's own patterns: something every text the
# finder can find anything in holds. A text without it skips the finder; a text with it runs
# the finder as before. So a gate can save time and never change a decision, as long as it
# is truly necessary: each row below says which part of which pattern makes it so.
_A_DIGIT = re.compile(r"\d")
_ASCII_DIGITS = b"0123456789"


class Clues(NamedTuple):
    """What the gates ask of a (normalised) text, worked out once per text."""

    text: str
    # The text in lower case when it is ASCII, else None: IGNORECASE also pairs a few
    # non-ASCII letters with ASCII ones ("ı" matches i, "ſ" matches s), which a search of the
    # lowered text would miss, so a word gate lets every non-ASCII text through.
    lower: str | None
    digits: int  # how many \d (Unicode decimal digits, which include 0-9) it holds

    @classmethod
    def of(cls, text: str) -> Clues:
        if not text.isascii():
            return cls(text, None, sum(1 for _ in _A_DIGIT.finditer(text)))
        # In ASCII \d is 0-9; deleting them from the bytes is faster than a regex scan.
        raw = text.encode("ascii")
        return cls(text, text.lower(), len(raw) - len(raw.translate(None, _ASCII_DIGITS)))


@dataclass(frozen=True, slots=True)
class Needs:
    """What every text a finder can find anything in holds (each part that is set)."""

    digits: int = 0  # at least this many \d
    words: tuple[str, ...] = ()  # one of these, as an IGNORECASE pattern compares letters
    marks: tuple[str, ...] = ()  # one of these exactly, for a case-sensitive literal
    # A match of a looser pattern than the finder's (its value alone), with the same flags;
    # tried last, as it scans the text where the parts above only look things up.
    loose: re.Pattern[str] | None = None

    def met(self, clues: Clues) -> bool:
        # Plain loops: this runs ~50 times per text, and a generator costs more than the test.
        if clues.digits < self.digits:
            return False
        low = clues.lower
        if self.words and low is not None:
            for word in self.words:
                if word in low:
                    break
            else:
                return False
        if self.marks:
            for mark in self.marks:
                if mark in clues.text:
                    break
            else:
                return False
        return self.loose is None or self.loose.search(clues.text) is not None


ALWAYS = Needs()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _digit_count(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _starting_within(
    matches: list[re.Match[str]], starts: list[int], pos: int, reach: int
) -> list[re.Match[str]]:
    """The matches that start in [pos, pos + reach], whole even if they run past the reach.

    Matching once and bisecting keeps long messages linear; re-scanning the text after
    every keyword would not be.
    """
    first = bisect_left(starts, pos)
    last = bisect_left(starts, pos + reach + 1)
    return matches[first:last]


# --- checksums -------------------------------------------------------------------------


# python-stdnum's checks: Luhn for cards, ISO 13616 mod 97 (with each country's length
# and format) for IBANs, the ABA checksum for US routing numbers, and national ids below.
def luhn_ok(digits: str) -> bool:
    return digits.isdigit() and bool(luhn.is_valid(digits))


def iban_ok(compact: str) -> bool:
    return compact.isascii() and bool(iban.is_valid(compact))


def aba_ok(digits: str) -> bool:
    return len(digits) == 9 and digits != "0" * 9 and bool(rtn.is_valid(digits))


_ENTROPY = Base64HighEntropyString()  # detect-secrets' Shannon entropy and its default limit


def looks_random(value: str, limit: float = 3.0) -> bool:
    """A key or token, not a word: long, has digits, not hyphenated words, enough entropy."""
    if len(value) < 20 or not any(c.isdigit() for c in value):
        return False
    parts = [part for part in re.split(r"[-_./+=~]", value) if part]
    if len(parts) > 1 and all(x.isdigit() or (x.isalpha() and x.islower()) for x in parts):
        return False  # "10000-hours-of-practice", "2024-05-01-notes": prose, not a key
    return bool(_ENTROPY.calculate_shannon_entropy(value) >= limit)


def regex_finder(pattern: re.Pattern[str]) -> Finder:
    """A finder that reports every match of ``pattern``."""

    def find(clues: Clues) -> Iterator[Span]:
        for m in pattern.finditer(clues.text):
            yield m.span()

    return find
