"""Pure pydantic domain models: no I/O, no Neo4j, no model clients.

Two clocks on every fact:
- world time (``valid_from`` / ``valid_to``): when the statement was true;
- belief time (``known_from`` / ``known_to``): when the assistant learned it and when
  it was closed, in the conversation's clock. ``close_reason`` says what the close
  means: a contradiction, refinement or end closed the world window and the fact stays
  believed with its end (``withdrawn_at`` is None); a retraction or user edit withdrew
  it from belief. The store keeps each fact's belief history, so a view as of any
  belief time reads the fact as believed then (docs/time.md).
Windows are half-open ``[from, to)``; ``None`` as the end means "still open".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

if TYPE_CHECKING:  # numpy loads with the first vector: `hmem mcp`'s handshake waits for none
    import numpy as np
    import numpy.typing as npt

# The session types live in hmem/chat.py; named here too (callers import them from either).
from hmem.chat import AddResult, Message, MessagesIn, Role
from hmem.errors import (
    DateRangeError,
    DimensionMismatchError,
    InvalidVectorError,
    NaiveDatetimeError,
    TemporalOrderError,
    ValidationError,
)

__all__ = [
    "FACT_ID_PATTERN",
    "IMPORT_BATCH_SIZE",
    "MAX_BATCH_UNEMBEDDED",
    "MAX_DRAFT_LIST",
    "AddResult",
    "Category",
    "Entity",
    "EntityRef",
    "Episode",
    "Fact",
    "FactDraft",
    "FactHistory",
    "HistoryStep",
    "InferredLink",
    "Message",
    "MessagesIn",
    "NewFactId",
    "ProfileRecord",
    "Role",
    "SupersedeReason",
    "SupersedeTarget",
    "SupersessionLink",
    "UserExport",
    "WriteResult",
    "check_vector",
    "fold_speaker",
    "import_batches",
    "require_aware",
    "vector_array",
]

Text = Annotated[str, Field(min_length=1)]
#: How much of the calendar a date read from words names: the value is the period's start.
Precision = Literal["day", "week", "month", "season", "year", "decade"]
Id = Annotated[str, Field(min_length=1, max_length=128)]
# A caller-chosen fact id must stay addressable as one URL path segment
# (/facts/{id}): no '/', '?', '#', '%', spaces or controls, and not '.' or '..'.
FACT_ID_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9._:@-]{0,127}$"
MAX_DRAFT_LIST = 64  # entities, supersedes, relates, conflicts of one draft (as RememberIn)
# The facts of one HTTP batch that arrive without a vector: the server embeds them (and
# finds their entities) inside the request, ~11 ms a fact on the security review's
# machine (2,000 took 22 s and held a worker that long). Bulk imports send vectors, or
# are cut into batches of this many (import_batches' max_unembedded).
MAX_BATCH_UNEMBEDDED = 500
NewFactId = Annotated[str, Field(min_length=1, max_length=128, pattern=FACT_ID_PATTERN)]


def require_aware(value: datetime | None, name: str) -> datetime | None:
    """Refuse naive datetimes (hmem never guesses a timezone) and those that have no UTC
    equivalent (``9999-12-31T23:59:59-14:00`` is in year 10000 in UTC)."""
    if value is not None and (value.tzinfo is None or value.tzinfo.utcoffset(value) is None):
        raise NaiveDatetimeError(f"{name} must carry a timezone (got naive {value.isoformat()})")
    if value is not None:
        try:
            value.astimezone(UTC)
        except OverflowError:
            raise DateRangeError(
                f"{name} is outside years 1..9999 in UTC ({value.isoformat()})"
            ) from None
    return value


_FLOAT32_MAX = 3.4028234663852886e38  # vectors are also stored as float32 (embedding_f32le)


def vector_array(
    vector: Sequence[float], dim: int | None = None, what: str = "embedding"
) -> npt.NDArray[np.float64]:
    """The vector as a float64 array, or an error saying what is wrong with it.

    Every vector that reaches the database passes here (caller's, embedder's, query's): a
    NaN, an Infinity, or a length of zero (or one that overflows a double) makes a cosine
    undefined, and a stored one would fail every scan over its user's facts.
    """
    import numpy as np

    try:
        values = np.asarray(vector, dtype=np.float64)  # one C loop, not three Python ones
    except (TypeError, ValueError) as exc:
        raise InvalidVectorError(f"{what} must be a list of numbers") from exc
    if values.ndim != 1:
        raise InvalidVectorError(f"{what} must be a flat list of numbers")
    if dim is not None and len(values) != dim:
        raise DimensionMismatchError(f"{what} has {len(values)} dimensions; the index has {dim}")
    if len(values) and not np.abs(values).max() <= _FLOAT32_MAX:  # NaN compares False
        raise InvalidVectorError(
            f"{what} holds NaN, Infinity or a value beyond float32: every value must be finite"
        )
    square = float(np.dot(values, values))  # as Neo4j's cosine computes it, in doubles
    if not (square > 0.0 and math.isfinite(square)):
        raise InvalidVectorError(
            f"{what} has no usable length (all zeros, or too large): cosine is undefined"
        )
    return values


def check_vector(
    vector: Sequence[float], dim: int | None = None, what: str = "embedding"
) -> list[float]:
    """The vector as a list of floats, or an error saying what is wrong with it
    (``vector_array``'s checks)."""
    out: list[float] = vector_array(vector, dim, what).tolist()
    return out


def check_window(start: datetime | None, end: datetime | None, what: str) -> None:
    if start is not None and end is not None and end < start:
        raise TemporalOrderError(
            f"{what} window ends before it starts ({end.isoformat()} < {start.isoformat()})"
        )


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Category(StrEnum):
    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"


class SupersedeReason(StrEnum):
    CONTRADICTION = "contradiction"  # the old fact became false
    REFINEMENT = "refinement"  # the old fact became imprecise
    RETRACTION = "retraction"  # closed with no successor
    USER_EDIT = "user_edit"  # the user corrected it: it was never true
    ENDED = "ended"  # it stopped ("passed away", "quit"); the new fact says so, no new value


class EntityRef(_Model):
    """An entity named by a fact on the way in; resolved per user by ``canonical``."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    type: Annotated[str, Field(max_length=40)] = "thing"
    aliases: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=32
    )

    @property
    def canonical(self) -> str:
        return canonical_name(self.name)


def canonical_name(name: str) -> str:
    return " ".join(name.casefold().split())


def fold_speaker(speaker: str | None) -> str | None:
    """A turn's speaker as stored: the canonical form of entity names (so a question's
    names match it exactly); blank or None is no speaker."""
    if speaker is None:
        return None
    folded = canonical_name(speaker)
    return folded or None


class SupersedeTarget(_Model):
    """An older fact that a new fact replaces, and why."""

    target_id: Id
    reason: SupersedeReason = SupersedeReason.CONTRADICTION
    relation: str | None = Field(None, max_length=40, description="the extractor's word, if any")
    inferred: bool = Field(False, description="read from the words by hmem (remember's infer)")
    cue: str | None = Field(None, max_length=200, description="the words an inference rests on")
    score: float | None = Field(None, description="the target's score as a neighbour")

    @field_validator("reason")
    @classmethod
    def _has_successor(cls, reason: SupersedeReason) -> SupersedeReason:
        if reason is SupersedeReason.RETRACTION:
            raise ValidationError("a retraction has no successor: use close(), not supersedes=")
        return reason


class FactDraft(_Model):
    """A fact to write. Times default at write: ``known_from`` to the write's
    ``observed_at``, ``valid_from`` to ``known_from``."""

    text: Text
    category: Category = Category.SEMANTIC
    importance: Annotated[int, Field(ge=1, le=10)] = 5
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    valid_precision: Precision | None = Field(
        None, description="the period valid_from stands for (day … decade), when read from words"
    )
    valid_to_precision: Precision | None = None
    known_from: datetime | None = None
    # Capped like RememberIn's lists, and deduplicated below: a batch line with 20,000
    # copies of one target once stored 20,000 edges and slowed every later search.
    entities: list[EntityRef] = Field(default_factory=list, max_length=MAX_DRAFT_LIST)
    supersedes: list[SupersedeTarget] = Field(default_factory=list, max_length=MAX_DRAFT_LIST)
    relates: list[Id] = Field(default_factory=list, max_length=MAX_DRAFT_LIST)
    conflicts: list[Id] = Field(
        default_factory=list,
        max_length=MAX_DRAFT_LIST,
        description="open facts this one disagrees with, unresolved",
    )
    embedding: list[float] | None = None
    source: Annotated[str, Field(max_length=200)] = "direct"
    id: NewFactId | None = Field(None, description="caller-chosen id (idempotent imports)")
    turn: Annotated[int, Field(ge=0)] | None = Field(
        None,
        description="position in its session (remember_many's session_id): consecutive "
        "turns are neighbours in recall",
    )
    speaker: Annotated[str, Field(max_length=200)] | None = Field(
        None,
        description="who said it, for a chat turn: stored folded (casefold, single spaces) "
        "like entity names; a question that names the speaker ranks the turn higher",
    )

    @field_validator("speaker")
    @classmethod
    def _folded_speaker(cls, speaker: str | None) -> str | None:
        return fold_speaker(speaker)

    @field_validator("supersedes")
    @classmethod
    def _one_per_target(cls, targets: list[SupersedeTarget]) -> list[SupersedeTarget]:
        """A target named twice is superseded once, for the first reason given."""
        first: dict[str, SupersedeTarget] = {}
        for target in targets:
            first.setdefault(target.target_id, target)
        return list(first.values())

    @field_validator("relates", "conflicts")
    @classmethod
    def _distinct(cls, ids: list[str]) -> list[str]:
        return list(dict.fromkeys(ids))

    @field_validator("embedding")
    @classmethod
    def _usable_vector(cls, vector: list[float] | None) -> list[float] | None:
        if vector is not None:
            vector_array(vector)  # pydantic made it a list of floats already
        return vector

    @model_validator(mode="after")
    def _times(self) -> FactDraft:
        require_aware(self.valid_from, "valid_from")
        require_aware(self.valid_to, "valid_to")
        require_aware(self.known_from, "known_from")
        check_window(self.valid_from, self.valid_to, "valid")
        return self


IMPORT_BATCH_SIZE = 2000  # facts per transaction of import_facts, unless told


def import_batches(
    drafts: Iterable[FactDraft],
    batch_size: int,
    start: datetime,
    *,
    max_unembedded: int | None = None,
) -> list[list[FactDraft]]:
    """A long history in transactions: oldest first (by ``known_from``; ``start`` for a
    draft without one), at most ``batch_size`` each, and at most ``max_unembedded``
    drafts without a vector each when given; a draft that names a fact of the current
    batch (supersedes, relates to or conflicts with it) starts a new one, so every target
    is stored before it is named."""
    if batch_size < 1 or (max_unembedded is not None and max_unembedded < 1):
        raise ValidationError("batch_size and max_unembedded must be at least 1")
    batches: list[list[FactDraft]] = [[]]
    ids: set[str] = set()
    bare = 0  # drafts without a vector in the current batch
    for draft in sorted(drafts, key=lambda d: d.known_from or start):
        named = {t.target_id for t in draft.supersedes} | set(draft.relates) | set(draft.conflicts)
        full = max_unembedded is not None and draft.embedding is None and bare >= max_unembedded
        if len(batches[-1]) >= batch_size or named & ids or full:
            batches.append([])
            ids = set()
            bare = 0
        batches[-1].append(draft)
        bare += draft.embedding is None
        if draft.id is not None:
            ids.add(draft.id)
    return [batch for batch in batches if batch]


class Fact(_Model):
    """A stored fact, as read back."""

    id: str
    user_id: str
    text: str
    category: Category
    importance: int
    hash: str
    valid_from: datetime
    valid_to: datetime | None = None
    known_from: datetime
    known_to: datetime | None = None
    ingested_at: datetime
    last_used_at: datetime | None = None
    corroborations: int = 1
    source: str = "direct"
    speaker: str | None = Field(None, description="who said it (folded), for a chat turn")
    entities: list[str] = Field(default_factory=list)
    close_reason: SupersedeReason | None = None
    valid_precision: Precision | None = None
    valid_to_precision: Precision | None = None

    @property
    def is_open(self) -> bool:
        """Not closed: no supersession, end or retraction (``known_to`` is None)."""
        return self.known_to is None

    @property
    def withdrawn_at(self) -> datetime | None:
        """The belief time from which this fact is no longer believed at all (a
        retraction, or a user edit: never true), else None. A fact closed by a
        contradiction, refinement or end is still believed, with its end."""
        if self.close_reason in (SupersedeReason.RETRACTION, SupersedeReason.USER_EDIT):
            return self.known_to
        return None

    def current_at(self, now: datetime) -> bool:
        """Believed at ``now`` (known by then, not withdrawn) and not ended by then: the
        search's current view, the same as ``as_of=now`` for the belief clock. A fact
        true only from a later day still counts (an upcoming event: "from <date>")."""
        withdrawn = self.withdrawn_at
        return (
            (withdrawn is None or withdrawn > now)
            and self.known_from <= now
            and (self.valid_to is None or self.valid_to > now)
        )


class SupersessionLink(_Model):
    """``(new)-[:SUPERSEDES]->(old)``: ``new_id`` replaced ``old_id``."""

    new_id: str
    old_id: str
    reason: SupersedeReason
    at: datetime
    relation: str | None = None
    inferred: bool = False
    cue: str | None = None
    score: float | None = None
    undone_at: datetime | None = None  # a restore of old_id undid it then (the edge is kept)


class InferredLink(_Model):
    """A supersession ``remember`` read from the words (``infer``): the fact it
    closed, why, the cue and the neighbour's score."""

    old_id: str
    reason: SupersedeReason
    cue: str
    score: float | None = None


class HistoryStep(_Model):
    fact: Fact
    link: SupersessionLink


class FactHistory(_Model):
    """A fact with its whole supersession chain, oldest predecessor first."""

    fact: Fact
    predecessors: list[HistoryStep] = Field(default_factory=list)
    successors: list[HistoryStep] = Field(default_factory=list)


class Entity(_Model):
    id: str
    user_id: str
    name: str
    canonical: str
    type: str
    aliases: list[str] = Field(default_factory=list)


class Episode(_Model):
    id: str
    user_id: str
    session_id: str | None = None
    observed_at: datetime
    text: str
    redactions: list[str] = Field(default_factory=list)


class WriteResult(_Model):
    """What one write did, by ids."""

    added: list[str] = Field(default_factory=list)
    superseded: list[str] = Field(default_factory=list)
    merged: list[str] = Field(default_factory=list)
    related: list[tuple[str, str]] = Field(default_factory=list)
    skipped: int = 0
    refused: list[str] = Field(default_factory=list)
    inferred: list[InferredLink] = Field(
        default_factory=list, description="the closures read from the words (infer)"
    )
    proposed: list[InferredLink] = Field(
        default_factory=list,
        description="closures read from the words but NOT made: more than "
        "infer_max_closures at once; confirm one with close() or supersedes=",
    )
    bookmarks: list[str] = Field(
        default_factory=list,
        description="Neo4j's bookmarks of the write: a Memory in another process reads "
        "after it with catch_up(bookmarks) (read-your-writes on a cluster)",
    )

    @classmethod
    def combine(cls, results: Sequence[WriteResult]) -> WriteResult:
        """Several writes as one (``import_facts``' batches), the last bookmarks kept: a
        later commit's bookmark covers the earlier ones of the same database."""
        return cls(
            added=[i for r in results for i in r.added],
            superseded=[i for r in results for i in r.superseded],
            merged=[i for r in results for i in r.merged],
            related=[p for r in results for p in r.related],
            skipped=sum(r.skipped for r in results),
            refused=[k for r in results for k in r.refused],
            inferred=[i for r in results for i in r.inferred],
            proposed=[i for r in results for i in r.proposed],
            bookmarks=results[-1].bookmarks if results else [],
        )

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "superseded": len(self.superseded),
            "merged": len(self.merged),
            "related": len(self.related),
            "skipped": self.skipped,
            "refused": len(self.refused),
        }


class ProfileRecord(_Model):
    """The user's running profile as stored."""

    text: str
    updated_at: datetime


# One change of a fact's belief history (docs/time.md): from belief time ``at`` on, its
# window ends at ``valid_to`` (None: no end); ``why``: None (believed) or the close's reason.
BeliefEntry: TypeAlias = tuple[datetime, datetime | None, SupersedeReason | None]


class UserExport(_Model):
    """Everything stored for one user, as plain JSON-able data."""

    user_id: str
    exported_at: datetime
    facts: list[Fact]
    entities: list[Entity]
    episodes: list[Episode]
    supersessions: list[SupersessionLink]
    relations: list[tuple[str, str]]
    profile: ProfileRecord | None = Field(None, description="the running profile, if any")
    belief_history: dict[str, list[BeliefEntry]] = Field(default_factory=dict)  # by fact id
    extra: dict[str, Any] = Field(default_factory=dict)
