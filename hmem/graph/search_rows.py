"""The read statements' rows as hmem's types: candidates, expanded facts with their
one-hop neighbours, and the Lucene query prefix of one user's facts. Pure conversion,
no driver calls; ``hmem.graph.search`` runs the statements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from hmem._text import lexical_user_key
from hmem.graph._records import native, to_fact
from hmem.models import Fact, HistoryStep, SupersessionLink

__all__ = [
    "SIGNALS",
    "Candidate",
    "CandidateSet",
    "ExpandedFact",
    "Question",
    "Retrieved",
    "Source",
    "TemporalMode",
    "expanded_fact",
    "lucene_prefix",
    "server_ms",
]

Source = Literal["dense", "lexical", "entity", "session", "adjacent", "time", "speaker"]
TemporalMode = Literal["current", "history", "asof", "asof_history"]


@dataclass(frozen=True, slots=True)
class Question:
    """One question as the store is asked it (``FactSearch.retrieve``, ``candidates``,
    ``retrieve_params``): ``hmem.recall`` analyses the text into these once.

    ``vector``: the question's (None: no dense part). ``lucene``: its content words
    OR-ed (``hmem.recall.query.lucene_query``) and ``names`` its names, asked of the
    fulltext index term by term for this user's facts. ``entity_grams``: the folded
    grams matched against the user's entity names and aliases. ``mode``, ``now``,
    ``as_of``, ``as_of_event``: the temporal view (search_candidates.cypher).
    ``k_dense`` / ``k_lexical`` / ``k_entity``: how many candidates each source brings.
    ``retrieve`` only: ``weights`` (dense, lexical, entity, session, adjacent, time,
    speaker) of the server's first-pass score, the best ``keep`` expanded, the best
    ``seeds`` seeding the graph step, ``window`` ([start, end): the question's span of
    time, the 'time' signal)."""

    user_id: str
    vector: Sequence[float] | None
    lucene: str | None
    entity_grams: Sequence[str]
    mode: TemporalMode
    now: datetime
    names: Sequence[str] = ()
    as_of: datetime | None = None
    as_of_event: datetime | None = None
    k_dense: int = 60
    k_lexical: int = 60
    k_entity: int = 60
    weights: Sequence[float] = (0.0,) * 7
    keep: int = 0
    seeds: int = 10
    window: tuple[datetime, datetime] | None = None


class Candidate(NamedTuple):
    """One source's raw score of one fact. A tuple: a search makes hundreds, and
    ranking reads them as (id, source, score) (hmem.recall.scoring.base_scores)."""

    id: str
    source: Source
    score: float


class CandidateSet:
    """Raw candidates and how the dense part was found: ``strategy`` is exact | index |
    search | index+exact, search+exact (fell back) | none. ``table`` (``retrieve``):
    search_recall.cypher's one row per candidate, [id, dense, lexical, entity, session,
    adjacent, time, speaker], null where a source did not find it; ranking reads it as
    it came (hmem.recall.scoring.table_signals), and ``rows`` are made from it only
    when read."""

    __slots__ = ("_rows", "round_trips", "server_ms", "strategy", "table")

    def __init__(
        self,
        rows: list[Candidate] | None = None,
        strategy: str = "none",
        server_ms: float = 0.0,
        round_trips: int = 0,
        *,
        table: list[list[Any]] | None = None,
    ) -> None:
        self._rows = rows
        self.table = table
        self.strategy = strategy
        self.server_ms = server_ms
        self.round_trips = round_trips

    @property
    def rows(self) -> list[Candidate]:
        """One (id, source, score) per source that found a fact."""
        if self._rows is None:
            self._rows = [
                Candidate(signals[0], source, score)
                for signals in self.table or []
                for source, score in zip(SIGNALS, signals[1:], strict=True)
                if score is not None
            ]
        return self._rows


@dataclass(frozen=True, slots=True)
class ExpandedFact:
    """A fact with its one-hop neighbours: ``older`` it replaced, ``newer`` replaced it."""

    fact: Fact
    older: list[HistoryStep] = field(default_factory=list)
    newer: list[HistoryStep] = field(default_factory=list)
    related: list[tuple[str, str | None]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Retrieved:
    """Candidates and the expansion of the best ``keep`` of them (``FactSearch.retrieve``)."""

    candidates: CandidateSet
    expanded: list[ExpandedFact]


# The signals of a search_recall.cypher row, in its order (after the id).
SIGNALS: tuple[Source, ...] = (
    "dense", "lexical", "entity", "session", "adjacent", "time", "speaker",
)  # fmt: skip


def server_ms(summary: Any) -> float:
    after = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
    return float(after)


def lucene_prefix(user_id: str) -> str:
    """The start of the fulltext query of one user's facts: the user's exact key
    (``lexical_user_key``, one untokenised term) in the ``user_key`` field of
    ``fact_text_user``, boosted 0, AND one question term over ``text`` (the statement
    appends it in parentheses). Lucene only finds the facts, this user's alone (so a
    fetch's limit counts them only); the statement scores them with the user's own
    statistics and checks user_id again."""
    return f"user_key:{lexical_user_key(user_id)}^0 AND text:"


_TIMES = ("valid_from", "valid_to", "known_from", "known_to", "ingested_at", "last_used_at")


# The order of a fact sent as a list by search_recall.cypher.
_FACT_FIELDS = (
    "id", "user_id", "text", "category", "importance", "hash", "corroborations", "source",
    "speaker", "close_reason", *_TIMES,
)  # fmt: skip


def _times(fact: dict[str, Any] | list[Any]) -> dict[str, Any]:
    """A fact of search_recall.cypher (a list, date-times as ISO text) as the row
    ``to_fact`` reads; maps (search_expand.cypher) pass through."""
    if isinstance(fact, list):
        fact = dict(zip(_FACT_FIELDS, fact, strict=True))
    for key in _TIMES:
        value = fact.get(key)
        if isinstance(value, str):
            fact[key] = datetime.fromisoformat(value).astimezone(UTC)
    return fact


def _fact(fact: dict[str, Any] | list[Any], entities: list[str] | None = None) -> Fact:
    if isinstance(fact, list):  # search_recall.cypher: plain values only, no driver types
        data = _times(fact)
        data["entities"] = sorted(entities or [])
        return Fact.model_validate(data)
    return to_fact(_times(fact), entities)


def _linked(rows: list[dict[str, Any]]) -> list[HistoryStep]:
    out = []
    for row in rows:
        data = dict(row) if isinstance(row["fact"], list) else native(row)
        if isinstance(data.get("at"), str):
            data["at"] = datetime.fromisoformat(data["at"]).astimezone(UTC)
        fact = _fact(data.pop("fact"))
        out.append(HistoryStep(fact=fact, link=SupersessionLink.model_validate(data)))
    return out


def expanded_fact(row: dict[str, Any]) -> ExpandedFact:
    return ExpandedFact(
        fact=_fact(row["fact"], row["entities"]),
        older=_linked(row["older"]),
        newer=_linked(row["newer"]),
        related=[(x["id"], x["relation"]) for x in row["related"]],
    )
