"""Relative dates in a stored sentence ("last week", "yesterday", "three years ago"):
the words, and the date they meant when they were said, read with ``hmem.slots.dates``'
readers. The context block puts that date beside the words, so a sentence kept for
months never reads "last week" as the reader's last week."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime

from hmem.slots.dates import SEASONS, WEEKDAYS, When, _find

__all__ = ["relative_dates"]


# Readers whose date depends on when the words were said ("last week", "yesterday"):
# their words read wrong later, so the context block puts the date beside them. A bare
# month ("in May") is left as it is: it names its month, only the year is implied.
_RELATIVE = frozenset(
    {"weekday", "day_m2", "day_m1", "day_0", "day_p1", "day_p2", "unit_rel", "ago",
     "past_n", "in_n", "month_rel", "season_rel"}
)  # fmt: skip


def _shown(when: When) -> str:
    start = when.start
    if when.precision == "day":
        return f"{start:%Y-%m-%d}"
    if when.precision == "week":
        return f"week of {start:%Y-%m-%d}"
    if when.precision in ("month", "season"):
        return f"{start:%Y-%m}"
    if when.precision == "decade":
        return f"{start.year}s"
    return f"{start.year}"


# Words without which none of the _RELATIVE readers matches: most facts skip the readers.
_RELATIVE_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|back|earlier|last|next|this|coming|past|"
    r"previous|within|now|weekends?|(?:day|week|month|year|decade)s?|"
    + "|".join(WEEKDAYS)
    + "|"
    + "|".join(SEASONS)
    + r")\b",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=4096)
def relative_dates(text: str, said_at: datetime) -> tuple[tuple[int, int, str], ...]:
    """The words of ``text`` that name a date relative to when it was said ("last week",
    "yesterday", "three years ago"), each as ``(begin, end, date)`` with the
    date they meant at ``said_at`` ("2026-11-02", "week of 2026-10-26", "2023"): a
    sentence kept for months must not read "last week" as this week's. Dates in full
    ("March 2026", "2026-03-01") and bare months ("in May") are not listed. Cached: the
    context block asks for the same facts again and again."""
    if not _RELATIVE_WORDS.search(text):
        return ()
    base = said_at.astimezone(UTC)
    return tuple(
        (f.begin, f.end, _shown(f.when))
        for f in _find(text, base)
        if f.kind in _RELATIVE and f.role != "skip"
    )
