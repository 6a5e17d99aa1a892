"""The memory surface: the one declaration of what a memory does, whatever it runs on.

Every face takes an object of this surface: an embedded ``Memory`` (Neo4j in this
process), an ``AsyncMemory`` (the same, awaited), a ``Client`` or an ``AsyncClient`` (a
running hmem API). mypy holds each of them to it (``tests/unit/surface_conformance.py``)
and a unit test compares their signatures with it (``tests/unit/test_surface.py``).

The options of the calls that take many are declared once, as ``TypedDict``s, and both
Protocols (and the implementations that only pass them on) take them as
``**options: Unpack[...]``. The defaults belong to the side that applies them: the
embedded ``Memory`` (and the read path under it) or the HTTP API's schemas, which a
client leaves to the server by sending only what the caller gave.

What only an embedded ``Memory`` does (the schema, the worker, maintenance, the model
checks) is not part of the surface: see ``LOCAL_ONLY``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, Unpack

from hmem.models import (
    AddResult,
    Category,
    EntityRef,
    Fact,
    FactDraft,
    FactHistory,
    MessagesIn,
    SupersedeReason,
    SupersedeTarget,
    UserExport,
    WriteResult,
)
from hmem.search_options import SEARCH_DEFAULTS, AsOfOptions, SearchOptions

if TYPE_CHECKING:  # the read path and the queue load with the memory that uses them
    from hmem.ingest.queue import Job
    from hmem.recall.models import SearchResult

__all__ = [
    "LOCAL_ONLY",
    "SEARCH_DEFAULTS",
    "AddOptions",
    "AsOfOptions",
    "AsyncMemorySurface",
    "CloseOptions",
    "FactsOptions",
    "ImportOptions",
    "MemorySurface",
    "RememberManyOptions",
    "RememberOptions",
    "SearchOptions",
]


class RememberOptions(TypedDict, total=False):
    """What ``remember`` may say of the fact besides its text (see ``Memory.remember``)."""

    category: Category | str
    importance: int
    observed_at: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    entities: Sequence[EntityRef | str]
    supersedes: Sequence[str | SupersedeTarget]
    reason: SupersedeReason | str
    relates: Sequence[str]
    embedding: Sequence[float] | None
    source: str
    fact_id: str | None
    speaker: str | None
    infer: bool | None


class RememberManyOptions(TypedDict, total=False):
    """The batch's observation time and the conversation its facts came from."""

    observed_at: datetime | None
    session_id: str | None


class ImportOptions(TypedDict, total=False):
    """How ``import_facts`` cuts a long history: transactions of ``batch_size`` facts
    (2000), said at ``observed_at`` (default now)."""

    batch_size: int
    observed_at: datetime | None


class FactsOptions(AsOfOptions, total=False):
    """Which facts ``facts`` lists: current ones by default, a page of ``limit``."""

    include_closed: bool
    limit: int
    offset: int


class CloseOptions(TypedDict, total=False):
    """When a fact stopped being true (``at``) and was learned so, and why."""

    at: datetime | None
    observed_at: datetime | None
    reason: SupersedeReason | str


class AddOptions(TypedDict, total=False):
    """How ``add`` takes a session: its time and id, in the background or not, and the
    key that makes a retried call return the same job."""

    observed_at: datetime | None
    session_id: str | None
    background: bool
    idempotency_key: str | None


class MemorySurface(Protocol):
    """A memory, called synchronously: ``Memory`` and ``Client``."""

    def remember(
        self, text: str, *, user_id: str, **options: Unpack[RememberOptions]
    ) -> WriteResult: ...
    def remember_many(
        self, drafts: Sequence[FactDraft], *, user_id: str, **options: Unpack[RememberManyOptions]
    ) -> WriteResult: ...
    def import_facts(
        self, drafts: Iterable[FactDraft], *, user_id: str, **options: Unpack[ImportOptions]
    ) -> WriteResult: ...
    def add(
        self, messages: MessagesIn, *, user_id: str, **options: Unpack[AddOptions]
    ) -> AddResult: ...
    # An embedded memory answers with the queue's ``Job`` (its ``public()`` is what the
    # API sends), a client with that JSON object.
    def job(self, job_id: str, *, user_id: str) -> Job | dict[str, Any]: ...
    def retry_job(self, job_id: str, *, user_id: str) -> Job | dict[str, Any]: ...
    def search(
        self, query: str, *, user_id: str, **options: Unpack[SearchOptions]
    ) -> SearchResult: ...
    def get(self, fact_id: str, *, user_id: str, as_of: datetime | None = ...) -> Fact: ...
    def history(
        self, fact_id: str, *, user_id: str, as_of: datetime | None = ...
    ) -> FactHistory: ...
    def facts(self, *, user_id: str, **options: Unpack[FactsOptions]) -> list[Fact]: ...
    def close(self, fact_id: str, *, user_id: str, **options: Unpack[CloseOptions]) -> Fact: ...
    def restore(
        self, fact_id: str, *, user_id: str, observed_at: datetime | None = None
    ) -> Fact: ...
    def erase(self, fact_id: str, *, user_id: str) -> dict[str, int]: ...
    def erase_user(self, user_id: str) -> dict[str, int]: ...
    def export(self, user_id: str) -> UserExport: ...
    def audit(self, *, user_id: str, limit: int = ...) -> list[dict[str, Any]]: ...
    def profile(self, *, user_id: str) -> dict[str, Any] | None: ...
    def set_profile(self, text: str, *, user_id: str) -> None: ...
    def shutdown(self) -> None: ...


class AsyncMemorySurface(Protocol):
    """The same memory, awaited: ``AsyncMemory`` and ``AsyncClient``."""

    async def remember(
        self, text: str, *, user_id: str, **options: Unpack[RememberOptions]
    ) -> WriteResult: ...
    async def remember_many(
        self, drafts: Sequence[FactDraft], *, user_id: str, **options: Unpack[RememberManyOptions]
    ) -> WriteResult: ...
    async def import_facts(
        self, drafts: Iterable[FactDraft], *, user_id: str, **options: Unpack[ImportOptions]
    ) -> WriteResult: ...
    async def add(
        self, messages: MessagesIn, *, user_id: str, **options: Unpack[AddOptions]
    ) -> AddResult: ...
    async def job(self, job_id: str, *, user_id: str) -> Job | dict[str, Any]: ...
    async def retry_job(self, job_id: str, *, user_id: str) -> Job | dict[str, Any]: ...
    async def search(
        self, query: str, *, user_id: str, **options: Unpack[SearchOptions]
    ) -> SearchResult: ...
    async def get(self, fact_id: str, *, user_id: str, as_of: datetime | None = ...) -> Fact: ...
    async def history(
        self, fact_id: str, *, user_id: str, as_of: datetime | None = ...
    ) -> FactHistory: ...
    async def facts(self, *, user_id: str, **options: Unpack[FactsOptions]) -> list[Fact]: ...
    async def close(
        self, fact_id: str, *, user_id: str, **options: Unpack[CloseOptions]
    ) -> Fact: ...
    async def restore(
        self, fact_id: str, *, user_id: str, observed_at: datetime | None = None
    ) -> Fact: ...
    async def erase(self, fact_id: str, *, user_id: str) -> dict[str, int]: ...
    async def erase_user(self, user_id: str) -> dict[str, int]: ...
    async def export(self, user_id: str) -> UserExport: ...
    async def audit(self, *, user_id: str, limit: int = ...) -> list[dict[str, Any]]: ...
    async def profile(self, *, user_id: str) -> dict[str, Any] | None: ...
    async def set_profile(self, text: str, *, user_id: str) -> None: ...
    async def shutdown(self) -> None: ...


# What only an embedded Memory does: the schema, the worker, maintenance, the model checks.
LOCAL_ONLY = frozenset(
    {
        "asearch",  # the awaitable search of a sync Memory; AsyncMemory has them all
        "capabilities",
        "catch_up",
        "check_embedding_model",
        "embed_missing",
        "ensure_schema_once",
        "import_export",  # an export brought back into this store (hmem import export)
        "import_sessions",
        "init_schema",
        "maintain",
        "reembed",
        "reembed_pending",
        "run_jobs",
        "start_worker",
        "warm_up",
    }
)
