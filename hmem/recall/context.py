"""The context block: hits as dated lines, packed into a token budget.

A current fact shows when it became true and what it replaced; a closed fact shows
its window and what replaced it, e.g.::

    - Maya lives in London (2019-09-01 → 2026-03-01, replaced on 2026-03-02 by: Maya
      moved from London to Paris in March 2026)

An unresolved conflict (two facts that both stand, linked as conflicting, or two values
of one single-valued slot stated the same day) is shown as both statements with their
dates, so the reader can ask which is correct. Values of one single-valued slot that
both stand, stated on different days, read newest first, e.g.::

    - I just moved to Porto (since 2026-05-04; earlier: I live in Lisbon, said 2021-03-02)
    - I live in Lisbon (since 2021-03-02; an earlier value: a newer one is stated)
 A chat turn
stored with its speaker reads "caroline: I painted the lake today (since ...)".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from hmem.models import Fact, SupersedeReason
from hmem.recall.models import Hit
from hmem.slots.relative import relative_dates

__all__ = ["dated", "header", "pack", "render_conflict", "render_hit", "window"]

_VERB = {
    SupersedeReason.CONTRADICTION: "replaced",
    SupersedeReason.REFINEMENT: "refined",
    SupersedeReason.USER_EDIT: "corrected",
    SupersedeReason.RETRACTION: "retracted",
    SupersedeReason.ENDED: "ended",
}


def _day(value: datetime) -> str:
    return value.strftime("%Y-%m-%d")


def dated(text: str, said_at: datetime) -> str:
    """``text`` with the date each relative phrase meant when it was said beside it:
    "My dog Rex died last week [week of 2026-10-26]", so the block never reads "last
    week" as the reader's last week."""
    out, at = [], 0
    for _begin, end, date in relative_dates(text, said_at):
        out += [text[at:end], f" [{date}]"]
        at = end
    return "".join(out) + text[at:]


def _text(fact: Fact) -> str:
    """The fact's text, with relative dates resolved beside their words (``dated``); a
    chat turn's with who said it in front ("caroline: ..."), unless the text already
    starts so."""
    text = dated(" ".join(fact.text.split()).rstrip("."), fact.known_from)
    if fact.speaker and not text.casefold().startswith(f"{fact.speaker}:"):
        return f"{fact.speaker}: {text}"
    return text


def window(fact: Fact, now: datetime) -> str:
    """When the fact was (or is, or will be) true."""
    if fact.valid_to is not None:
        if fact.valid_to <= fact.valid_from:
            return "never true"
        return f"{_day(fact.valid_from)} → {_day(fact.valid_to)}"
    if fact.valid_from > now:
        return f"from {_day(fact.valid_from)}"
    return f"since {_day(fact.valid_from)}"


def render_hit(hit: Hit, now: datetime) -> str:
    fact = hit.fact
    notes = [window(fact, now)]
    if fact.known_to is not None:
        if hit.successors:
            step = hit.successors[0]
            verb = _VERB.get(step.link.reason, "replaced")
            notes.append(f"{verb} on {_day(step.link.at)} by: {_text(step.fact)}")
        else:
            reason = fact.close_reason or SupersedeReason.RETRACTION
            verb = "retracted" if reason is SupersedeReason.RETRACTION else _VERB[reason]
            notes.append(f"{verb} on {_day(fact.known_to)}")
    elif hit.newer_value is not None:
        notes.append("an earlier value: a newer one is stated")
    elif hit.predecessors:
        step = max(hit.predecessors, key=lambda s: s.link.at)
        if step.link.reason is SupersedeReason.USER_EDIT:
            notes.append(f"corrects: {_text(step.fact)}")
        else:
            notes.append(f"before: {_text(step.fact)} ({window(step.fact, now)})")
    if hit.earlier and fact.known_to is None:
        said = "; ".join(f"{_text(f)}, said {_day(f.known_from)}" for f in hit.earlier)
        notes.append(f"earlier: {said}")
    return f"- {_text(fact)} ({'; '.join(notes)})"


def render_conflict(a: Hit, b: Hit, now: datetime) -> str:
    return (
        f"- Unresolved conflict, both stated: {_text(a.fact)} ({window(a.fact, now)}) "
        f"vs {_text(b.fact)} ({window(b.fact, now)}); ask which is correct"
    )


def header(mode: str, as_of: datetime | None, as_of_event: datetime | None) -> str:
    if mode == "as_of":
        views = []
        if as_of is not None:
            views.append(f"as believed on {_day(as_of)}")
        if as_of_event is not None:
            views.append(f"as true on {_day(as_of_event)}")
        return f"Memories about the user, {' and '.join(views)} (dates: when true):"
    if mode == "history":
        return "Memories about the user, with earlier facts that were replaced (dates: when true):"
    return "Memories about the user (dates: when true):"


def pack(
    hits: Sequence[Hit],
    conflicts: Sequence[tuple[Hit, Hit]],
    *,
    budget: int,
    now: datetime,
    title: str,
    count: Callable[[str], int],
) -> tuple[list[Hit], str, int]:
    """Greedy in score order: a line that does not fit is skipped and smaller ones may
    still come. Conflicts go first (a wrong answer costs more than a missing one).
    Returns the hits that made it, the block, and its tokens, counted as it grows: the
    title and each line with the newline before it, never the whole block again (with
    ``count_tokens`` that sum is the block's count: a newline between a title ending in
    ':' or a line ending in ')' and a line starting '- ' is one run)."""
    lines: list[str] = []
    used = count(title) + 1
    packed: list[Hit] = []
    placed: set[str] = set()
    for a, b in conflicts:
        line = render_conflict(a, b, now)
        cost = count(line) + 1
        if used + cost <= budget:
            lines.append(line)
            used += cost
    for hit in hits:
        line = render_hit(hit, now)
        cost = count(line) + 1
        if used + cost > budget or hit.fact.id in placed:
            continue
        lines.append(line)
        used += cost
        packed.append(hit)
        placed.add(hit.fact.id)
    if not lines:
        return [], "", 0
    return packed, "\n".join([title, *lines]), used - 1  # the last line has no newline
