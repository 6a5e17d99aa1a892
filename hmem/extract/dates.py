"""Resolve the dates a model or a user wrote against the session's clock.

The extractor is asked for absolute dates, but models slip ("last month"), so every
``event_date`` goes through here with ``observed_at`` as the reference. ``dateparser``
(a maintained library) handles relative phrases; partial ISO dates pick the first day.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import dateparser

__all__ = ["resolve_date"]

_ISO_PARTIAL = re.compile(r"^\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?\s*$")


def resolve_date(text: str | None, observed_at: datetime) -> datetime | None:
    """An aware UTC datetime for ``text`` read at ``observed_at``, or None if unreadable.

    ``2026`` → 2026-01-01, ``2026-03`` → 2026-03-01, ``last month`` → one month before
    ``observed_at``; a date more than 200 years away is treated as unreadable.
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
    parsed: datetime | None = dateparser.parse(
        text,
        settings={
            "RELATIVE_BASE": base,
            "PREFER_DAY_OF_MONTH": "first",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    if parsed is None or abs(parsed.year - base.year) > 200:
        return None
    return parsed.replace(tzinfo=UTC)
