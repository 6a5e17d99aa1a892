"""Resolve the dates a model or a user wrote against the session's clock.

The extractor is asked for absolute dates, but models slip ("last month"), so every
``event_date`` goes through here with ``observed_at`` as the reference. ``dateparser``
(a maintained library) handles relative phrases; partial ISO dates pick the first day.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import dateparser

__all__ = ["resolve_date"]

_ISO_PARTIAL = re.compile(r"^\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?\s*$")


def resolve_date(text: str | None, observed_at: datetime) -> datetime | None:
    """An aware UTC datetime for ``text`` read at ``observed_at``, or None if unreadable.

    ``2026`` → 2026-01-01, ``2026-03`` → 2026-03-01, ``last month`` → one month before
    ``observed_at``; a date without a year ("December 20") is the nearest such day to
    ``observed_at``, a year before or after included; a date more than 200 years away is
    treated as unreadable.
    """
    if not text or not text.strip():
        return None
    match = _ISO_PARTIAL.match(text)
    if match:
        year, month, day = (int(g) if g else 1 for g in match.groups())
        try:
            return datetime(year, month, day, tzinfo=UTC)
        except ValueError:
            return None
    base = observed_at.astimezone(UTC).replace(tzinfo=None)
    # "yesterday", "3 days ago", "in 2 weeks": what parse() would answer first (its
    # relative-time parser comes before the absolute one), and never a date without a
    # year, so no probe. Most of a write's date reading was parsing such a phrase twice.
    relative = _parse(text, base, relative=True)
    parsed = relative or _parse(text, base)
    if parsed is None or abs(parsed.year - base.year) > 200:
        return None
    if relative is None and base.year < 9998:  # the probe reads a year and a month later
        probe = base + _PROBE
        if _parse(text, probe) == _years_later(parsed, probe.year - base.year):
            parsed = _nearest(parsed, base)
    return parsed.replace(tzinfo=UTC)


# A date without a year ("December 20", "June") takes the year of the base, so said on
# 5 January 2025, "December 20" read 2025-12-20, almost a year after it was said. Read
# again against a base a year and a month later, such a date moves by the year alone (a
# relative one, "3 days ago", moves by the month too): then the nearest of last year's,
# this year's and next year's is meant.
_PROBE = timedelta(days=365 + 31)


def _parse(text: str, base: datetime, *, relative: bool = False) -> datetime | None:
    """dateparser's reading of ``text`` against ``base``; ``relative``: its relative-time
    parser alone, in English only (a text it does not read would otherwise be tried in
    every language dateparser knows, ~9 ms, before the full reading, which still detects
    the language as before)."""
    settings: dict[str, object] = {
        "RELATIVE_BASE": base,
        "PREFER_DAY_OF_MONTH": "first",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    if relative:
        settings["PARSERS"] = ["relative-time"]
    parsed: datetime | None = dateparser.parse(
        text, settings=settings, languages=["en"] if relative else None
    )
    return parsed


def _years_later(moment: datetime, years: int) -> datetime | None:
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February
        return None


def _nearest(moment: datetime, base: datetime) -> datetime:
    """The same day in the year before, the same or the year after: the nearest to
    ``base`` (the earlier one when two are as near)."""
    years = (_years_later(moment, n) for n in (-1, 0, 1))
    return min((m for m in years if m is not None), key=lambda m: (abs(m - base), m))
