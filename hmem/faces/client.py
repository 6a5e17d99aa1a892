"""``Client`` and ``AsyncClient``: the HTTP API with the surface of ``Memory``.

An application that talks to a running hmem service writes the same calls it would
write against an embedded ``Memory``: ``add``, ``job``, ``retry_job``, ``remember``,
``remember_many``, ``import_facts``, ``search``, ``get``, ``history``, ``facts``,
``close``, ``restore``, ``erase``, ``erase_user``, ``export``, ``audit``, ``profile``,
``set_profile``: the surface declared in ``hmem/surface.py`` (mypy and
``tests/unit/test_surface.py`` hold both clients to it). Options a call is not given
are not sent: the API's schemas hold the defaults. Answers are the same models
(``Fact``, ``WriteResult``, ...) and errors the same classes (``NotFoundError``,
``ConflictError``, ``PolicyRefusal`` ...), rebuilt from the service's problem+json.
HTTP-only failures have their own branch under ``HmemError`` (in ``hmem.errors``)::

    ApiError                     any other non-2xx answer (``status``, ``problem``)
    ├── AuthenticationError      401: no key, or a malformed/unknown/revoked one
    └── PermissionDeniedError    403: the key may not reach that user
    ApiUnavailableError          (a RetryableError) the service cannot be reached

``shutdown()`` (or ``with``) closes the connection pool; ``close`` closes a *fact*, as
on ``Memory``. This module never imports FastAPI.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

import httpx

from hmem import errors
from hmem.errors import ApiError, ApiUnavailableError, AuthenticationError, PermissionDeniedError
from hmem.faces._client_ops import _batches, _Op, _Ops, _raise_for
from hmem.models import (
    AddResult,
    Fact,
    FactDraft,
    FactHistory,
    MessagesIn,
    UserExport,
    WriteResult,
)
from hmem.recall.models import SearchResult
from hmem.surface import (
    AddOptions,
    AsyncMemorySurface,
    CloseOptions,
    FactsOptions,
    ImportOptions,
    MemorySurface,
    RememberManyOptions,
    RememberOptions,
    SearchOptions,
)

__all__ = [
    "ApiError",
    "ApiUnavailableError",
    "AsyncClient",
    "AuthenticationError",
    "Client",
    "PermissionDeniedError",
]

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"


def _own_write(method: str, path: str) -> bool:
    """A request whose answer's bookmark is this client's own write: a write (a search
    is a POST that writes nothing), or the status of its own session's job."""
    if method == "GET":
        return "/jobs/" in path
    return not path.endswith("/search")


def _keep_bookmark(
    http: httpx.Client | httpx.AsyncClient, op: _Op[Any], response: httpx.Response
) -> None:
    """Read-your-writes behind a load balancer: the ``Hmem-Bookmark`` of this client's
    last write goes with every later request, so a read through another replica waits
    for it (docs/scaling.md). Only its own writes' bookmarks are kept: never one a read,
    ``/healthz`` or another party's answer carried. A bookmark the API could not reach
    (503 ``bookmark-wait``) is dropped, so one stale token never fails every read."""
    mark = response.headers.get("Hmem-Bookmark")
    if mark and response.status_code < 400 and _own_write(op.method, op.path):
        http.headers["Hmem-Bookmark"] = mark
    elif response.status_code in (422, 503) and "Hmem-Bookmark" in http.headers:
        kind = response.headers.get("content-type", "")
        if kind.startswith("application/problem+json") and "bookmark" in response.text:
            del http.headers["Hmem-Bookmark"]


def _headers(api_key: str, extra: dict[str, str] | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "User-Agent": "hmem-client", **(extra or {})}


class Client:
    """The hmem HTTP API, synchronously. ``transport`` is httpx's test seam."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str,
        timeout: float = 30.0,
        headers: dict[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(
            base_url=base_url,
            headers=_headers(api_key, headers),
            timeout=timeout,
            transport=transport,
        )

    def _call(self, op: _Op[T]) -> T:
        try:
            response = self._http.request(op.method, op.path, params=op.params, json=op.body)
        except httpx.TransportError as exc:
            raise ApiUnavailableError(f"hmem API unreachable: {type(exc).__name__}") from exc
        _keep_bookmark(self._http, op, response)
        _raise_for(response)
        return op.parse(response.json())

    def shutdown(self) -> None:
        self._http.close()

    @property
    def bookmark(self) -> str | None:
        """The ``Hmem-Bookmark`` the next request sends (of this client's last write)."""
        mark: str | None = self._http.headers.get("Hmem-Bookmark")
        return mark

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.shutdown()

    def remember(
        self, text: str, *, user_id: str, **options: Unpack[RememberOptions]
    ) -> WriteResult:
        return self._call(_Ops.remember(text, user_id, options))

    def remember_many(
        self, drafts: Sequence[FactDraft], *, user_id: str, **options: Unpack[RememberManyOptions]
    ) -> WriteResult:
        """Write several facts in one transaction (``POST .../facts/batch``, at most
        2,000 facts, 500 of them without a vector, and the server's body limit, 1 MB by
        default)."""
        return self._call(_Ops.remember_many(drafts, user_id, options))

    def import_facts(
        self, drafts: Iterable[FactDraft], *, user_id: str, **options: Unpack[ImportOptions]
    ) -> WriteResult:
        """A long history in batches of ``remember_many``, as ``Memory.import_facts``
        cuts them (``hmem.models.import_batches``); the batches before an error stay."""
        at = options.get("observed_at")
        return WriteResult.combine(
            [
                self.remember_many(b, user_id=user_id, observed_at=at)
                for b in _batches(drafts, options)
            ]
        )

    def facts(self, *, user_id: str, **options: Unpack[FactsOptions]) -> list[Fact]:
        return self._call(_Ops.facts(user_id, options))

    def get(self, fact_id: str, *, user_id: str, as_of: datetime | None = None) -> Fact:
        return self._call(_Ops.get(fact_id, user_id, as_of))

    def history(self, fact_id: str, *, user_id: str, as_of: datetime | None = None) -> FactHistory:
        return self._call(_Ops.history(fact_id, user_id, as_of))

    def close(self, fact_id: str, *, user_id: str, **options: Unpack[CloseOptions]) -> Fact:
        return self._call(_Ops.close(fact_id, user_id, options))

    def restore(self, fact_id: str, *, user_id: str, observed_at: datetime | None = None) -> Fact:
        return self._call(_Ops.restore(fact_id, user_id, observed_at))

    def erase(self, fact_id: str, *, user_id: str) -> dict[str, int]:
        return self._call(_Ops.erase(fact_id, user_id))

    def erase_user(self, user_id: str) -> dict[str, int]:
        return self._call(_Ops.erase_user(user_id))

    def export(self, user_id: str) -> UserExport:
        return self._call(_Ops.export(user_id))

    def audit(self, *, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        return self._call(_Ops.audit(user_id, limit))

    def add(
        self, messages: MessagesIn, *, user_id: str, **options: Unpack[AddOptions]
    ) -> AddResult:
        """Remember a chat session through the extractor; ``background=True`` returns
        the queued job at once (poll it with ``job``)."""
        return self._call(_Ops.add(messages, user_id, options))

    def job(self, job_id: str, *, user_id: str) -> dict[str, Any]:
        """A session's job: status, attempts, result or error (never its text)."""
        return self._call(_Ops.job(job_id, user_id))

    def retry_job(self, job_id: str, *, user_id: str) -> dict[str, Any]:
        return self._call(_Ops.job(job_id, user_id, retry=True))

    def search(self, query: str, *, user_id: str, **options: Unpack[SearchOptions]) -> SearchResult:
        return self._call(_Ops.search(query, user_id, options))

    def profile(self, *, user_id: str) -> dict[str, Any] | None:
        """The running profile (``text``, ``updated_at``), or None."""
        try:
            return self._call(_Ops.profile(user_id))
        except errors.NotFoundError:
            return None

    def set_profile(self, text: str, *, user_id: str) -> None:
        self._call(_Ops.profile(user_id, text))

    def health(self) -> dict[str, Any]:
        return self._call(_Ops.health())

    def me(self) -> dict[str, Any]:
        """The key's tenant and the users it may reach."""
        return self._call(_Ops.me())


class AsyncClient:
    """The hmem HTTP API for asyncio frameworks; the same calls, awaited."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str,
        timeout: float = 30.0,
        headers: dict[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url,
            headers=_headers(api_key, headers),
            timeout=timeout,
            transport=transport,
        )

    async def _call(self, op: _Op[T]) -> T:
        try:
            response = await self._http.request(op.method, op.path, params=op.params, json=op.body)
        except httpx.TransportError as exc:
            raise ApiUnavailableError(f"hmem API unreachable: {type(exc).__name__}") from exc
        _keep_bookmark(self._http, op, response)
        _raise_for(response)
        return op.parse(response.json())

    async def shutdown(self) -> None:
        await self._http.aclose()

    @property
    def bookmark(self) -> str | None:
        """The ``Hmem-Bookmark`` the next request sends (of this client's last write)."""
        mark: str | None = self._http.headers.get("Hmem-Bookmark")
        return mark

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.shutdown()

    async def remember(
        self, text: str, *, user_id: str, **options: Unpack[RememberOptions]
    ) -> WriteResult:
        return await self._call(_Ops.remember(text, user_id, options))

    async def remember_many(
        self, drafts: Sequence[FactDraft], *, user_id: str, **options: Unpack[RememberManyOptions]
    ) -> WriteResult:
        return await self._call(_Ops.remember_many(drafts, user_id, options))

    async def import_facts(
        self, drafts: Iterable[FactDraft], *, user_id: str, **options: Unpack[ImportOptions]
    ) -> WriteResult:
        at = options.get("observed_at")
        return WriteResult.combine(
            [
                await self.remember_many(b, user_id=user_id, observed_at=at)
                for b in _batches(drafts, options)
            ]
        )

    async def facts(self, *, user_id: str, **options: Unpack[FactsOptions]) -> list[Fact]:
        return await self._call(_Ops.facts(user_id, options))

    async def get(self, fact_id: str, *, user_id: str, as_of: datetime | None = None) -> Fact:
        return await self._call(_Ops.get(fact_id, user_id, as_of))

    async def history(
        self, fact_id: str, *, user_id: str, as_of: datetime | None = None
    ) -> FactHistory:
        return await self._call(_Ops.history(fact_id, user_id, as_of))

    async def close(self, fact_id: str, *, user_id: str, **options: Unpack[CloseOptions]) -> Fact:
        return await self._call(_Ops.close(fact_id, user_id, options))

    async def restore(
        self, fact_id: str, *, user_id: str, observed_at: datetime | None = None
    ) -> Fact:
        return await self._call(_Ops.restore(fact_id, user_id, observed_at))

    async def erase(self, fact_id: str, *, user_id: str) -> dict[str, int]:
        return await self._call(_Ops.erase(fact_id, user_id))

    async def erase_user(self, user_id: str) -> dict[str, int]:
        return await self._call(_Ops.erase_user(user_id))

    async def export(self, user_id: str) -> UserExport:
        return await self._call(_Ops.export(user_id))

    async def audit(self, *, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        return await self._call(_Ops.audit(user_id, limit))

    async def add(
        self, messages: MessagesIn, *, user_id: str, **options: Unpack[AddOptions]
    ) -> AddResult:
        return await self._call(_Ops.add(messages, user_id, options))

    async def job(self, job_id: str, *, user_id: str) -> dict[str, Any]:
        return await self._call(_Ops.job(job_id, user_id))

    async def retry_job(self, job_id: str, *, user_id: str) -> dict[str, Any]:
        return await self._call(_Ops.job(job_id, user_id, retry=True))

    async def search(
        self, query: str, *, user_id: str, **options: Unpack[SearchOptions]
    ) -> SearchResult:
        return await self._call(_Ops.search(query, user_id, options))

    async def profile(self, *, user_id: str) -> dict[str, Any] | None:
        try:
            return await self._call(_Ops.profile(user_id))
        except errors.NotFoundError:
            return None

    async def set_profile(self, text: str, *, user_id: str) -> None:
        await self._call(_Ops.profile(user_id, text))

    async def health(self) -> dict[str, Any]:
        return await self._call(_Ops.health())

    async def me(self) -> dict[str, Any]:
        return await self._call(_Ops.me())


if TYPE_CHECKING:  # mypy holds both clients to the surface (hmem/surface.py)
    _sync: type[MemorySurface] = Client
    _async: type[AsyncMemorySurface] = AsyncClient
