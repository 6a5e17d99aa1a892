"""The read path's public results: pure pydantic data."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hmem.models import Fact, HistoryStep

__all__ = ["Hit", "MaintenanceResult", "SearchResult", "SearchTimings"]

SearchMode = Literal["current", "history", "as_of"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Hit(_Model):
    """One recalled fact, why it scored what it scored, and its one-hop history.

    ``parts`` are the weighted contributions that add up to ``score`` (``dense``,
    ``lexical``, ``entity``, ``recency``, ``importance``, and in history mode
    ``inherited`` / ``history``); ``raw`` holds each signal before weighting (0–1).
    """

    fact: Fact
    score: float
    parts: dict[str, float]
    raw: dict[str, float] = Field(default_factory=dict)
    sources: list[str] = Field(default_factory=list, description="dense, lexical, entity")
    predecessors: list[HistoryStep] = Field(
        default_factory=list, description="facts this one replaced (one hop)"
    )
    successors: list[HistoryStep] = Field(
        default_factory=list, description="facts that replaced this one (one hop)"
    )
    promoted_by: str | None = Field(
        None, description="history mode: the hit whose predecessor this is"
    )
    conflicts_with: list[str] = Field(
        default_factory=list, description="ids of hits that conflict with this one, unresolved"
    )
    earlier: list[Fact] = Field(
        default_factory=list,
        description="earlier values of this fact's single-valued slot among the hits, still "
        "open (newest first): this one is newer",
    )
    newer_value: str | None = Field(
        None, description="id of the hit holding a newer value of this fact's slot"
    )

    @property
    def current(self) -> bool:
        return self.fact.known_to is None


class SearchTimings(_Model):
    """Milliseconds. ``recall_ms`` excludes embedding the query (``embed_ms``)."""

    embed_ms: float = 0.0
    candidates_ms: float = 0.0
    expand_ms: float = 0.0
    scoring_ms: float = 0.0
    recall_ms: float = 0.0
    server_ms: float = 0.0
    round_trips: int = 0


class SearchResult(_Model):
    """What recall put on the desk: hits in score order, the context block for the
    prompt, its size in tokens, and how it was found."""

    query: str
    user_id: str
    hits: list[Hit]
    context: str
    tokens: int
    token_budget: int
    mode: SearchMode
    as_of: datetime | None = None
    as_of_event: datetime | None = None
    dense: bool = Field(description="False when no embedder: lexical + entity only")
    strategy: str = Field(description="dense strategy: exact | index | index+exact | none")
    candidates: int = 0
    dropped: int = Field(0, description="scored hits left out by k or the token budget")
    notes: list[str] = Field(default_factory=list)
    timings: SearchTimings = Field(default_factory=SearchTimings)


class MaintenanceResult(_Model):
    """What ``Memory.maintain`` did for one user: episodic facts closed (not erased)."""

    user_id: str
    cutoff: datetime
    expired: list[str] = Field(default_factory=list)
