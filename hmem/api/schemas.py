"""Request and response bodies of the HTTP API. The domain models are reused as is, and a
body that carries a domain type's fields takes them from it (types and defaults) instead of
listing them again: ``MessageIn`` and ``ProfileOut`` by inheritance, ``AddOut`` and
``JobOut`` by ``_fields_of`` (their sources are dataclasses)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar, get_type_hints

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    create_model,
    field_validator,
    model_validator,
)

from hmem.chat import AddResult
from hmem.extract.policy import require_allowed_value
from hmem.ingest.job import Job
from hmem.models import (
    MAX_BATCH_UNEMBEDDED,
    Category,
    EntityRef,
    Fact,
    FactDraft,
    Message,
    NewFactId,
    ProfileRecord,
    SupersedeTarget,
)
from hmem.surface import SEARCH_DEFAULTS

__all__ = [
    "AddIn",
    "AddOut",
    "AuditEvent",
    "AuditPage",
    "CloseIn",
    "Erased",
    "FactPage",
    "Health",
    "JobOut",
    "MessageIn",
    "ProfileIn",
    "ProfileOut",
    "Readiness",
    "RememberIn",
    "RememberManyIn",
    "SearchIn",
    "UtcDatetime",
]


def _utc(value: datetime) -> datetime:
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise ValueError("outside years 1..9999 once converted to UTC") from None
    return value


# Every time given to the API: with a zone, and one that exists in UTC (hmem stores UTC).
UtcDatetime = Annotated[AwareDatetime, AfterValidator(_utc)]

FactId = Annotated[str, Field(min_length=1, max_length=128)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


M = TypeVar("M", bound=BaseModel)


def _fields_of(
    source: type, *, skip: Collection[str] = (), optional: Collection[str] = ()
) -> Callable[[type[M]], type[M]]:
    """The decorated body with the fields of the dataclass ``source`` (but ``skip``), in
    its order, with its types and defaults: a field added to or changed in ``source``
    reaches the API without a second list here. ``optional`` fields default to None on
    the wire where ``source`` has none; a field the body declares itself is taken as the
    body says (its validators are not kept: a body holds only such fields)."""
    hints = get_type_hints(source)

    def derive(body: type[M]) -> type[M]:
        fields: dict[str, Any] = {}
        for f in dataclasses.fields(source):
            if f.name in skip:
                continue
            if f.name in inspect.get_annotations(body):
                own = body.model_fields[f.name]
                fields[f.name] = (own.annotation, own)
            elif f.default_factory is not dataclasses.MISSING:
                fields[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
            elif f.default is not dataclasses.MISSING or f.name in optional:
                default = None if f.default is dataclasses.MISSING else f.default
                fields[f.name] = (hints[f.name], default)
            else:
                fields[f.name] = (hints[f.name], ...)
        base: type[M] = body.__base__  # type: ignore[assignment]
        return create_model(
            body.__name__, __base__=base, __module__=body.__module__, __doc__=body.__doc__, **fields
        )

    return derive


class RememberIn(_In):
    """One fact to write directly (no model). Times must carry a timezone."""

    text: Annotated[str, Field(min_length=1, max_length=100_000)]
    category: Category = Category.SEMANTIC
    importance: Annotated[int, Field(ge=1, le=10)] = 5
    observed_at: UtcDatetime | None = Field(
        None, description="when the user said it (belief time starts); default now"
    )
    valid_from: UtcDatetime | None = Field(None, description="when it became true")
    valid_to: UtcDatetime | None = Field(None, description="when it stopped being true")
    entities: list[Annotated[str, Field(min_length=1, max_length=200)] | EntityRef] = Field(
        default_factory=list, max_length=64
    )
    supersedes: list[FactId | SupersedeTarget] = Field(
        default_factory=list,
        max_length=64,
        description="this user's facts it replaces: ids (for `reason`), or objects with "
        "their own `target_id` and `reason`",
    )
    reason: Literal["contradiction", "refinement", "user_edit"] = "contradiction"
    relates: list[FactId] = Field(default_factory=list, max_length=64)
    embedding: list[float] | None = Field(None, max_length=8192)
    source: Annotated[str, Field(max_length=200)] = "api"
    id: NewFactId | None = Field(
        None, description="caller-chosen id (idempotent imports); letters, digits, . _ : @ -"
    )
    speaker: Annotated[str, Field(max_length=200)] | None = Field(
        None,
        description="who said it, for a chat turn (stored folded: casefold, single spaces; "
        "blank is none): a question that names the speaker ranks the turn higher",
    )
    infer: bool | None = Field(
        None,
        description='read time from the words: the window ("since 2019", "last month") '
        "and the current facts the text changes (closed by inferred SUPERSEDES edges). "
        "null: infer when neither supersedes nor valid_from/valid_to is given; false: "
        "store exactly as given",
    )


MAX_BATCH_FACTS = 2000


class RememberManyIn(_In):
    """Facts to write in one transaction (no model): a batch of `remember_many`."""

    facts: list[FactDraft] = Field(
        min_length=1,
        max_length=MAX_BATCH_FACTS,
        description="each with FactDraft's fields, as a line of `hmem import facts`: "
        "`known_from` is when the user said it (default `observed_at`), `turn` its place "
        "in the session; missing vectors are embedded in one batch (at most "
        f"{MAX_BATCH_UNEMBEDDED} facts without one per request)",
    )
    observed_at: UtcDatetime | None = Field(
        None, description="when the facts were said (belief time starts); default now"
    )
    session_id: Annotated[str, Field(max_length=200)] | None = Field(
        None,
        description="the conversation they came from: recall scores its facts as a group "
        "and brings the turns next to a hit; batches with the same id join one episode",
    )

    @model_validator(mode="after")
    def _bounded_work(self) -> RememberManyIn:
        """The server embeds the facts sent without a vector inside the request: a batch
        of them is capped lower, so one request does not hold a worker for tens of
        seconds (docs/api.md)."""
        bare = sum(f.embedding is None for f in self.facts)
        if bare > MAX_BATCH_UNEMBEDDED:
            raise ValueError(
                f"{bare} facts without an embedding; at most {MAX_BATCH_UNEMBEDDED} per "
                "batch: send vectors, or split the batch"
            )
        return self

    @field_validator("facts", mode="before")
    @classmethod
    def _raw_speakers(cls, facts: Any) -> Any:
        """The write policy on each speaker as sent: FactDraft stores it folded (case
        folded), which hides the case-sensitive shapes of keys from the later check."""
        if isinstance(facts, list) and len(facts) <= MAX_BATCH_FACTS:
            for i, fact in enumerate(facts):
                speaker = fact.get("speaker") if isinstance(fact, dict) else None
                if isinstance(speaker, str) and len(speaker) <= 200:
                    require_allowed_value(speaker, f"facts[{i}].speaker")
        return facts


class MessageIn(Message):
    """``hmem.models.Message`` (its roles), with the API's size limits."""

    content: Annotated[str, Field(min_length=1, max_length=100_000)]
    name: Annotated[str, Field(max_length=200)] | None = None


class AddIn(_In):
    """A chat session to remember through the extractor (one model call)."""

    messages: list[MessageIn] = Field(min_length=1, max_length=500)
    observed_at: UtcDatetime | None = Field(
        None, description="when the session happened (relative dates resolve against it)"
    )
    session_id: Annotated[str, Field(max_length=200)] | None = None
    background: bool = Field(
        False, description="answer 202 at once with a job id instead of waiting"
    )
    idempotency_key: Annotated[str, Field(max_length=200)] | None = Field(
        None, description="a retried request with the same key returns the same job"
    )


@_fields_of(
    AddResult,
    # not in the HTTP answer: kept off so the answer (and the OpenAPI document) stays as
    # it was; putting one on the wire is a change of the API
    skip=(
        "superseded_reasons",
        "prompt_tokens",
        "completion_tokens",
        "embedding_calls",
        "embed_seconds",
        "profile_updated",
    ),
)
class AddOut(BaseModel):
    """What a session did (``status`` ``done``), or its job (``queued``)."""

    status: str  # always sent: required on the wire, though AddResult defaults it


@_fields_of(
    Job,
    # a job's text (what the user said, what the model read) never leaves the server;
    # nor does the key that accepted it
    skip=("source_text", "episode_text", "refused", "ignored", "extraction", "key_id"),
    optional=("session_id", "result", "error"),
)
class JobOut(BaseModel):
    pass  # a session's job, as Job.public shows it


class SearchIn(_In):
    query: Annotated[str, Field(min_length=1, max_length=4000)]
    k: Annotated[int, Field(ge=1, le=200)] = SEARCH_DEFAULTS["k"]
    token_budget: Annotated[int, Field(ge=50, le=100_000)] = SEARCH_DEFAULTS["token_budget"]
    as_of: UtcDatetime | None = Field(None, description="belief time")
    as_of_event: UtcDatetime | None = Field(None, description="world time")
    now: UtcDatetime | None = Field(
        None,
        description="the moment of asking, for dates in the query ('yesterday', 'last "
        "June'); default the server's clock",
    )


class ProfileIn(_In):
    text: Annotated[str, Field(min_length=1, max_length=2000, description="at most 120 words")]


class ProfileOut(ProfileRecord):
    # an answer, not an input: it does not forbid what a newer server may add
    model_config = ConfigDict(extra="ignore")


class RestoreIn(_In):
    """Believe a closed fact again."""

    observed_at: UtcDatetime | None = Field(
        None, description="belief time from which it is believed again (default now)"
    )


class CloseIn(_In):
    """Close a fact with no successor."""

    at: UtcDatetime | None = Field(None, description="world time it stopped being true")
    observed_at: UtcDatetime | None = Field(None, description="when we learned it")
    reason: Literal["retraction", "user_edit"] = Field(
        "retraction",
        description="retraction: with `at`, it ended then (still believed with that end, "
        "stored as 'ended'); without, it is no longer believed. user_edit: it was never "
        "true (empty world window). docs/time.md",
    )


class FactPage(BaseModel):
    items: list[Fact]
    limit: int
    offset: int
    next_offset: int | None = Field(None, description="offset of the next page, if any")


class AuditEvent(BaseModel):
    id: str
    at: AwareDatetime
    op: str
    fact_ids: list[str]
    detail: dict[str, Any]


class AuditPage(BaseModel):
    items: list[AuditEvent]


class Erased(BaseModel):
    erased: dict[str, int] = Field(description="what was deleted, per kind of node")


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class Readiness(BaseModel):
    status: Literal["ready", "not_ready"]
    checks: dict[str, str]
    capabilities: dict[str, str] = Field(
        default_factory=dict,
        description="what this server can do: extraction (POST /messages, a language "
        "model) and dense_embeddings, each 'on: <model>' or 'off: <what to set>'",
    )
