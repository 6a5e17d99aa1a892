"""Chat turns from a framework into hmem, and recalled facts back out, shared by the
session-shaped adapters (Google ADK, CrewAI, Agent Framework, AutoGen, LlamaIndex).

A framework hands over turns (who spoke, the text, when). With a language model on the
hmem side they go to ``add()``: one extractor call infers the facts, their dates ("last
month") and what they replace. Without one (``ModelNotConfiguredError``) the user's own
turns are stored as they were said (``remember``, one per statement, with no structure:
hmem's plain-text inference of dates and changes applies where the core has it), so
nothing is lost and recall still finds them; the assistant's turns are not the user's facts and
questions state nothing, so both are left out there, as the extractor leaves them out.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from hmem.errors import ModelNotConfiguredError, PolicyRefusal
from hmem.faces.adapters._core import Port
from hmem.models import WriteResult
from hmem.recall.context import render_hit
from hmem.recall.models import Hit, SearchResult

__all__ = ["Turn", "TurnWriter", "dated_lines", "hit_line", "write_unrefused"]

_log = logging.getLogger(__name__)

Role = Literal["user", "assistant"]


@dataclass(frozen=True)
class Turn:
    """One chat turn; ``key`` identifies it in the framework (an event or message id)."""

    role: Role
    text: str
    at: datetime | None = None
    key: str | None = None


class TurnWriter:
    """Writes turns for one backend; remembers which it already sent.

    Frameworks re-send what they already sent (ADK passes the whole session on every
    ``add_session_to_memory``), so the writer keeps the keys it wrote per session
    (the last ``max_sessions`` sessions) and writes only the rest. After a restart
    the first re-send is written again: the extractor's dedup (or, model-free, the
    text hash) merges what is already stored rather than storing it twice.

    ``extract``: None tries ``add()`` and falls back to the model-free path once the
    backend says it has no model; True insists on the extractor; False never calls it.
    """

    def __init__(
        self,
        port: Port,
        *,
        source: str,
        extract: bool | None = None,
        background: bool = False,
        max_sessions: int = 10_000,
    ) -> None:
        self.port = port
        self.source = source
        self.extract = extract
        self.background = background
        self.max_sessions = max_sessions
        self._sent: OrderedDict[Hashable, set[str]] = OrderedDict()

    def unsent(self, session: Hashable, turns: Iterable[Turn]) -> list[Turn]:
        """The turns of ``session`` not written yet (turns without a key always are)."""
        sent = self._sent.get(session, set())
        return [t for t in turns if t.key is None or t.key not in sent]

    def _mark(self, session: Hashable, turns: Sequence[Turn]) -> None:
        sent = self._sent.setdefault(session, set())
        sent.update(t.key for t in turns if t.key is not None)
        self._sent.move_to_end(session)
        while len(self._sent) > self.max_sessions:
            self._sent.popitem(last=False)

    async def write(
        self,
        user_id: str,
        turns: Sequence[Turn],
        *,
        session_id: str | None = None,
        track: Hashable | None = None,
    ) -> Any:
        """Write the turns not sent before (tracked under ``track``, by default the
        session id); returns the backend's result, or None when nothing was new."""
        tracked = track if track is not None else session_id
        todo = self.unsent(tracked, turns) if tracked is not None else list(turns)
        todo = [t for t in todo if t.text.strip()]
        if not any(t.role == "user" for t in todo):
            if tracked is not None:  # nothing of the user's: nothing to learn from
                self._mark(tracked, todo)
            return None
        times = [t.at for t in todo if t.at is not None]
        observed_at = max(times) if times else datetime.now(UTC)
        result = None
        if self.extract is not False:
            try:
                result = await self.port.acall(
                    "add",
                    [{"role": t.role, "content": t.text} for t in todo],
                    user_id=user_id,
                    observed_at=observed_at,
                    session_id=session_id,
                    background=self.background,
                    idempotency_key=_idempotency_key(self.source, session_id, todo),
                )
            except ModelNotConfiguredError:
                if self.extract:
                    raise
                self.extract = False  # the backend has no model: stop asking it
        if result is None:
            # one remember per statement, with no structure given: hmem's plain-text
            # inference (where present) reads its dates and what it replaces
            results = [
                await self.port.acall(
                    "remember",
                    t.text.strip(),
                    user_id=user_id,
                    observed_at=t.at,
                    source=self.source,
                )
                for t in todo
                if t.role == "user" and not _question(t.text)
            ]
            result = WriteResult.combine(results) if results else None
        if tracked is not None:
            self._mark(tracked, todo)
        return result


async def write_unrefused(
    writer: TurnWriter,
    user_id: str,
    turns: Sequence[Turn],
    *,
    session_id: str | None = None,
    track: Hashable | None = None,
) -> None:
    """``writer.write`` for a framework whose run must not fail on what its user said:
    when the write policy refuses (model-free, ``remember`` refuses a statement with a
    secret), each turn is written alone and the refused ones are left out, logged with
    the kind refused, never the text. (With a model, ``add`` redacts and goes on.)"""
    try:
        await writer.write(user_id, turns, session_id=session_id, track=track)
    except PolicyRefusal:
        for turn in turns:
            try:
                await writer.write(user_id, [turn], session_id=session_id, track=track)
            except PolicyRefusal as exc:
                _log.warning("hmem did not remember a %s turn: refused (%s)", turn.role, exc.kind)


def _question(text: str) -> bool:
    """A question states nothing about the user (model-free, it is not stored)."""
    return text.rstrip().endswith("?")


def _idempotency_key(source: str, session_id: str | None, turns: Sequence[Turn]) -> str | None:
    """The same delta sent twice is one job: keyed by its first and last turn."""
    if session_id is None or turns[0].key is None or turns[-1].key is None:
        return None  # hmem's default: the same session, time and text
    return f"{source}:{session_id}:{turns[0].key}:{turns[-1].key}"[:200]


def hit_line(hit: Hit, now: datetime | None = None) -> str:
    """A hit as the context block reads it: text, its world window, what replaced it
    (or what it replaced)."""
    return render_hit(hit, now or datetime.now(UTC)).removeprefix("- ")


def dated_lines(result: SearchResult) -> list[str]:
    """Every hit as a dated line."""
    now = datetime.now(UTC)
    return [hit_line(hit, now) for hit in result.hits]
