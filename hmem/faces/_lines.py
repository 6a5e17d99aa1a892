"""What the faces that talk to a model share: a date argument read as the HTTP API reads
it, one fact as a line a model can read and cite, and a fact's history as such lines
(MCP tools and framework adapters)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pydantic

from hmem.errors import ValidationError
from hmem.models import Fact, FactHistory

__all__ = ["day", "fact_line", "history_text", "parse_when"]

_WHEN: pydantic.TypeAdapter[datetime] = pydantic.TypeAdapter(pydantic.AwareDatetime)


def parse_when(name: str, value: str | datetime | None) -> datetime | None:
    """An ISO 8601 date-time with a zone (or an aware datetime); anything else is a
    ``ValidationError`` naming the argument."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return _WHEN.validate_python(value.strip() if isinstance(value, str) else value)
    except pydantic.ValidationError as exc:
        raise ValidationError(
            f"{name}={value!r} is not an ISO 8601 date-time with a time zone, "
            f"e.g. 2026-03-01T00:00:00Z ({exc.errors()[0]['msg']})"
        ) from None


def day(value: datetime | None) -> str:
    return f"{value:%Y-%m-%d}" if value else "…"


def fact_line(fact: Fact, now: datetime | None = None) -> str:
    """``[id] text (true since D until D)``: the id to cite, the world window; a fact
    true only from a day after ``now`` (default the clock's now) reads ``(from D …)``,
    one corrected as never true (an empty window) ``(never true)``."""
    if fact.valid_to is not None and fact.valid_to <= fact.valid_from:
        return f"[{fact.id}] {fact.text} (never true)"
    until = f" until {day(fact.valid_to)}" if fact.valid_to else ""
    if fact.valid_from > (now or datetime.now(UTC)):
        return f"[{fact.id}] {fact.text} (from {day(fact.valid_from)}{until})"
    return f"[{fact.id}] {fact.text} (true since {day(fact.valid_from)}{until})"


def history_text(chain: FactHistory, line: Callable[[Fact], str] = fact_line) -> str:
    """A fact's supersession chain, one fact a line written by ``line``: ``before:``
    the facts it replaced, ``this:`` the fact, ``after:`` the facts that replaced it,
    each step with its reason and day."""
    lines = [
        f"before: {line(s.fact)} — {s.link.reason} on {day(s.link.at)}" for s in chain.predecessors
    ]
    lines.append(f"this:   {line(chain.fact)}")
    lines += [
        f"after:  {line(s.fact)} — {s.link.reason} on {day(s.link.at)}" for s in chain.successors
    ]
    return "\n".join(lines)
