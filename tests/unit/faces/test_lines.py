"""The lines the model-facing faces (MCP, adapters) write for a fact's history."""

from __future__ import annotations

from datetime import UTC, datetime

from hmem.faces._lines import history_text
from hmem.faces.adapters._core import format_fact
from hmem.models import Fact, FactHistory, HistoryStep, SupersedeReason, SupersessionLink


def _fact(fid: str, text: str, since: datetime, until: datetime | None = None) -> Fact:
    return Fact(
        id=fid,
        user_id="u",
        text=text,
        category="semantic",
        importance=5,
        hash=fid,
        valid_from=since,
        valid_to=until,
        known_from=since,
        known_to=until,
        ingested_at=since,
    )


def _chain() -> FactHistory:
    moved = datetime(2026, 3, 1, tzinfo=UTC)
    london = _fact("f1", "Maya lives in London", datetime(2019, 9, 1, tzinfo=UTC), moved)
    paris = _fact("f2", "Maya lives in Paris", moved)
    link = SupersessionLink(
        new_id="f2", old_id="f1", reason=SupersedeReason.CONTRADICTION, at=moved
    )
    return FactHistory(fact=paris, predecessors=[HistoryStep(fact=london, link=link)])


def test_a_history_reads_oldest_first_with_each_steps_reason_and_day() -> None:
    """The MCP tool's lines: each fact as ``fact_line`` writes it."""
    assert history_text(_chain()).splitlines() == [
        "before: [f1] Maya lives in London (true since 2019-09-01 until 2026-03-01)"
        " — contradiction on 2026-03-01",
        "this:   [f2] Maya lives in Paris (true since 2026-03-01)",
    ]


def test_the_adapters_history_marks_the_replaced_facts() -> None:
    assert history_text(_chain(), format_fact).splitlines()[0] == (
        "before: [f1] Maya lives in London (true since 2019-09-01 until 2026-03-01)"
        " [replaced] — contradiction on 2026-03-01"
    )
