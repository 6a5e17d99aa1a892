"""A reference model of hmem's two clocks: a small pure-Python bitemporal store (no
Neo4j), written from docs/time.md alone, as the oracle of the stateful property test
(tests/integration/test_bitemporal_oracle.py) and of the golden cases.

Each fact keeps its belief history: entries ``(at, valid_to, why)`` oldest first, where
``why`` is '' (learned or restored) or the close's reason. A view at belief time ``b``
and world time ``w`` holds the facts known by ``b`` whose entry at ``b`` is not a
withdrawal (``retraction``, ``user_edit``) and whose window as believed then holds ``w``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

WITHDRAWN = ("retraction", "user_edit")


class ModelError(Exception):
    """An operation hmem must refuse; ``kind`` names hmem's error class."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass(frozen=True)
class Entry:
    at: datetime
    valid_to: datetime | None
    why: str = ""


@dataclass
class ModelFact:
    id: str
    valid_from: datetime
    known_from: datetime
    history: list[Entry] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        return self.history[-1].why != ""

    @property
    def changed_at(self) -> datetime:
        return self.history[-1].at

    def entry(self, b: datetime) -> Entry | None:
        """The entry in force at belief time ``b`` (None: not known yet)."""
        found = None
        for e in self.history:
            if e.at <= b:
                found = e
        return found

    def seen(self, b: datetime | None) -> tuple[datetime | None, datetime | None, str | None]:
        """``(valid_to, known_to, close_reason)`` as believed at ``b`` (None: as stored)."""
        e = self.history[-1] if b is None else self.entry(b)
        assert e is not None
        return e.valid_to, (e.at if e.why else None), (e.why or None)


@dataclass
class BitemporalModel:
    facts: dict[str, ModelFact] = field(default_factory=dict)

    # -- writes -------------------------------------------------------------------------
    def remember(
        self,
        fid: str,
        observed: datetime,
        *,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        supersedes: tuple[str, str] | None = None,
    ) -> None:
        """A new fact learned at ``observed``; ``supersedes`` = (target id, reason)."""
        start = valid_from or observed
        if supersedes is not None:
            target_id, reason = supersedes
            old = self.facts.get(target_id)
            if old is None:
                raise ModelError("NotFoundError")
            if reason == "user_edit" and valid_from is None:
                start = old.valid_from  # a correction: true all along
            if valid_to is not None and valid_to < start:
                raise ModelError("TemporalOrderError")
            if old.closed:
                raise ModelError("ConflictError")
            if observed < old.changed_at:
                raise ModelError("TemporalOrderError")
            if reason == "user_edit":
                end = old.valid_from
            elif start < old.valid_from:
                raise ModelError("TemporalOrderError")
            else:
                end = start
            self._close(old, observed, end, reason)
        elif valid_to is not None and valid_to < start:
            raise ModelError("TemporalOrderError")
        self.facts[fid] = ModelFact(fid, start, observed, [Entry(observed, valid_to)])

    def import_fact(
        self,
        fid: str,
        *,
        valid_from: datetime,
        known_from: datetime,
        valid_to: datetime | None = None,
        known_to: datetime | None = None,
        close_reason: str | None = None,
    ) -> None:
        """A fact brought from elsewhere with its state: open, or closed at ``known_to``
        (the entry before the close had no end)."""
        history = [Entry(known_from, None if known_to else valid_to)]
        if known_to is not None:
            history.append(Entry(known_to, valid_to, close_reason or "retraction"))
        self.facts[fid] = ModelFact(fid, valid_from, known_from, history)

    def close(
        self,
        fid: str,
        observed: datetime,
        *,
        at: datetime | None = None,
        reason: str = "retraction",
    ) -> None:
        fact = self._get(fid)
        if fact.closed:
            raise ModelError("ConflictError")
        current = fact.history[-1].valid_to
        if reason == "user_edit":
            end: datetime | None = fact.valid_from
        elif at is not None:
            reason, end = "ended", at
        else:
            end = current  # withdrawn: the window as it was
        if end is not None and end < fact.valid_from:
            raise ModelError("TemporalOrderError")
        if observed < fact.known_from or observed < fact.changed_at:
            raise ModelError("TemporalOrderError")
        self._close(fact, observed, end, reason)

    def restore(self, fid: str, observed: datetime) -> None:
        fact = self._get(fid)
        if not fact.closed:
            raise ModelError("ConflictError")
        if observed < fact.changed_at:
            raise ModelError("TemporalOrderError")
        before = fact.history[-2].valid_to if len(fact.history) > 1 else None
        fact.history.append(Entry(observed, before))

    def erase(self, fid: str) -> None:
        self._get(fid)
        del self.facts[fid]

    def _get(self, fid: str) -> ModelFact:
        fact = self.facts.get(fid)
        if fact is None:
            raise ModelError("NotFoundError")
        return fact

    @staticmethod
    def _close(fact: ModelFact, observed: datetime, end: datetime | None, reason: str) -> None:
        current = fact.history[-1].valid_to
        if end is None or (current is not None and current < end):
            end = current  # an earlier explicit end is kept
        fact.history.append(Entry(observed, end, reason))

    # -- views --------------------------------------------------------------------------
    def view(
        self, now: datetime, as_of: datetime | None = None, as_of_event: datetime | None = None
    ) -> dict[str, tuple[datetime | None, datetime | None, str | None]]:
        """``facts(as_of=, as_of_event=)`` at request time ``now``: id -> (valid_to,
        known_to, close_reason) as believed at the view's belief time."""
        b = as_of or now
        w = as_of_event or b
        out = {}
        for fact in self.facts.values():
            e = fact.entry(b)
            if e is None or e.why in WITHDRAWN:
                continue
            if fact.valid_from <= w and (e.valid_to is None or e.valid_to > w):
                out[fact.id] = fact.seen(b)
        return out

    def get(
        self, fid: str, as_of: datetime | None = None
    ) -> tuple[datetime | None, datetime | None, str | None] | None:
        """``get(as_of=)``: the fact as believed then (None: unknown then, a 404)."""
        fact = self.facts.get(fid)
        if fact is None or (as_of is not None and fact.known_from > as_of):
            return None
        return fact.seen(as_of)
