"""What each HTTP call sends and how its answer is read (``_Ops``, one ``_Op`` per call),
and how a problem+json answer becomes the error it names: I/O-free, shared by ``Client``
and ``AsyncClient`` (``hmem/faces/client.py``), which only send and wait.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from hmem import errors
from hmem.errors import ApiError, AuthenticationError, PermissionDeniedError
from hmem.models import (
    IMPORT_BATCH_SIZE,
    MAX_BATCH_UNEMBEDDED,
    AddResult,
    Category,
    EntityRef,
    Fact,
    FactDraft,
    FactHistory,
    Message,
    MessagesIn,
    SupersedeReason,
    SupersedeTarget,
    UserExport,
    WriteResult,
    import_batches,
    require_aware,
)
from hmem.recall.models import SearchResult
from hmem.surface import (
    AddOptions,
    CloseOptions,
    FactsOptions,
    ImportOptions,
    RememberManyOptions,
    RememberOptions,
    SearchOptions,
)

T = TypeVar("T")


_BY_NAME: dict[str, type[errors.HmemError]] = {
    name: cls
    for name in errors.__all__
    if isinstance(cls := getattr(errors, name), type) and issubclass(cls, errors.HmemError)
}


def _raise_for(response: httpx.Response) -> None:
    if response.is_success:
        return
    try:
        problem = response.json()
        if not isinstance(problem, dict):
            problem = {}
    except ValueError:
        problem = {}
    detail = str(problem.get("detail") or problem.get("title") or response.reason_phrase)
    status = response.status_code
    if status == 401:
        raise AuthenticationError(detail, status=status, problem=problem)
    if status == 403:
        raise PermissionDeniedError(detail, status=status, problem=problem)
    cls = _BY_NAME.get(str(problem.get("error")))
    exc: errors.HmemError
    if cls is errors.PolicyRefusal:
        exc = errors.PolicyRefusal(str(problem.get("kind") or "unknown"), detail)
    elif cls is not None:
        exc = cls(detail)
    else:
        exc = ApiError(detail, status=status, problem=problem)
    exc.status = status  # type: ignore[attr-defined]
    raise exc


def _when(value: datetime | None) -> str | None:
    if value is None:
        return None
    require_aware(value, "datetime")  # naive, or no UTC equivalent: refused before sending
    return value.isoformat()


def _seg(value: str) -> str:
    return quote(value, safe="")


@dataclass(frozen=True)
class _Op(Generic[T]):
    method: str
    path: str
    parse: Callable[[Any], T]
    params: dict[str, Any] | None = None
    body: dict[str, Any] | None = None


def _user(user_id: str) -> str:
    return f"/v1/users/{_seg(user_id)}"


def _fact(user_id: str, fact_id: str) -> str:
    return f"{_user(user_id)}/facts/{_seg(fact_id)}"


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


class _Ops:
    """What each call sends and how its answer is read; shared by both clients."""

    @staticmethod
    def remember(text: str, user_id: str, o: RememberOptions) -> _Op[WriteResult]:
        # Only what the caller gave: the API's schema (RememberIn) holds the defaults.
        entities, supersedes = o.get("entities", ()), o.get("supersedes", ())
        embedding, category, reason = o.get("embedding"), o.get("category"), o.get("reason")
        body = _drop_none(
            {
                "text": text,
                "category": None if category is None else str(Category(category)),
                "importance": o.get("importance"),
                "observed_at": _when(o.get("observed_at")),
                "valid_from": _when(o.get("valid_from")),
                "valid_to": _when(o.get("valid_to")),
                "entities": [
                    e.model_dump() if isinstance(e, EntityRef) else str(e) for e in entities
                ],
                "supersedes": [
                    t.model_dump(mode="json", exclude_none=True)
                    if isinstance(t, SupersedeTarget)
                    else t
                    for t in supersedes
                ],
                "reason": None if reason is None else str(SupersedeReason(reason)),
                "relates": list(o.get("relates", ())),
                "embedding": list(embedding) if embedding is not None else None,
                "source": o.get("source"),
                "id": o.get("fact_id"),
                "speaker": o.get("speaker"),
                "infer": o.get("infer"),
            }
        )
        return _Op("POST", f"{_user(user_id)}/facts", WriteResult.model_validate, body=body)

    @staticmethod
    def remember_many(
        drafts: Sequence[FactDraft], user_id: str, o: RememberManyOptions
    ) -> _Op[WriteResult]:
        body = _drop_none(
            {
                "facts": [d.model_dump(mode="json", exclude_none=True) for d in drafts],
                "observed_at": _when(o.get("observed_at")),
                "session_id": o.get("session_id"),
            }
        )
        return _Op("POST", f"{_user(user_id)}/facts/batch", WriteResult.model_validate, body=body)

    @staticmethod
    def facts(user_id: str, o: FactsOptions) -> _Op[list[Fact]]:
        params = _drop_none(
            {
                "as_of": _when(o.get("as_of")),
                "as_of_event": _when(o.get("as_of_event")),
                "include_closed": "true" if o.get("include_closed") else None,
                "limit": o.get("limit"),
                "offset": o.get("offset"),
            }
        )
        return _Op(
            "GET",
            f"{_user(user_id)}/facts",
            lambda d: [Fact.model_validate(f) for f in d["items"]],
            params=params,
        )

    @staticmethod
    def get(fact_id: str, user_id: str, as_of: datetime | None) -> _Op[Fact]:
        params = _drop_none({"as_of": _when(as_of)})
        return _Op("GET", _fact(user_id, fact_id), Fact.model_validate, params=params)

    @staticmethod
    def history(fact_id: str, user_id: str, as_of: datetime | None) -> _Op[FactHistory]:
        params = _drop_none({"as_of": _when(as_of)})
        return _Op(
            "GET", f"{_fact(user_id, fact_id)}/history", FactHistory.model_validate, params=params
        )

    @staticmethod
    def close(fact_id: str, user_id: str, o: CloseOptions) -> _Op[Fact]:
        reason = o.get("reason")
        body = _drop_none(
            {
                "at": _when(o.get("at")),
                "observed_at": _when(o.get("observed_at")),
                "reason": None if reason is None else str(SupersedeReason(reason)),
            }
        )
        return _Op("POST", f"{_fact(user_id, fact_id)}/close", Fact.model_validate, body=body)

    @staticmethod
    def restore(fact_id: str, user_id: str, observed_at: datetime | None = None) -> _Op[Fact]:
        body = _drop_none({"observed_at": _when(observed_at)})
        return _Op("POST", f"{_fact(user_id, fact_id)}/restore", Fact.model_validate, body=body)

    @staticmethod
    def erase(fact_id: str, user_id: str) -> _Op[dict[str, int]]:
        return _Op("DELETE", _fact(user_id, fact_id), lambda d: dict(d["erased"]))

    @staticmethod
    def erase_user(user_id: str) -> _Op[dict[str, int]]:
        return _Op("DELETE", _user(user_id), lambda d: dict(d["erased"]))

    @staticmethod
    def export(user_id: str) -> _Op[UserExport]:
        return _Op("GET", f"{_user(user_id)}/export", UserExport.model_validate)

    @staticmethod
    def audit(user_id: str, limit: int) -> _Op[list[dict[str, Any]]]:
        return _Op(
            "GET",
            f"{_user(user_id)}/audit",
            lambda d: list(d["items"]),
            params={"limit": limit},
        )

    @staticmethod
    def add(messages: MessagesIn, user_id: str, o: AddOptions) -> _Op[AddResult]:
        if isinstance(messages, str):
            msgs: list[Any] = [{"role": "user", "content": messages}]
        else:
            msgs = [
                m.model_dump(exclude_none=True) if isinstance(m, Message) else dict(m)
                for m in messages
            ]
        body = _drop_none(
            {
                "messages": msgs,
                "observed_at": _when(o.get("observed_at")),
                "session_id": o.get("session_id"),
                "background": o.get("background"),
                "idempotency_key": o.get("idempotency_key"),
            }
        )
        return _Op("POST", f"{_user(user_id)}/messages", AddResult.from_dict, body=body)

    @staticmethod
    def job(job_id: str, user_id: str, retry: bool = False) -> _Op[dict[str, Any]]:
        path = f"{_user(user_id)}/jobs/{_seg(job_id)}" + ("/retry" if retry else "")
        return _Op("POST" if retry else "GET", path, dict)

    @staticmethod
    def search(query: str, user_id: str, o: SearchOptions) -> _Op[SearchResult]:
        body = _drop_none(
            {
                "query": query,
                "k": o.get("k"),
                "token_budget": o.get("token_budget"),
                "as_of": _when(o.get("as_of")),
                "as_of_event": _when(o.get("as_of_event")),
                "now": _when(o.get("now")),
            }
        )
        return _Op("POST", f"{_user(user_id)}/search", SearchResult.model_validate, body=body)

    @staticmethod
    def profile(user_id: str, text: str | None = None) -> _Op[dict[str, Any] | None]:
        if text is None:
            return _Op("GET", f"{_user(user_id)}/profile", dict)
        return _Op("PUT", f"{_user(user_id)}/profile", lambda d: None, body={"text": text})

    @staticmethod
    def health() -> _Op[dict[str, Any]]:
        return _Op("GET", "/healthz", dict)

    @staticmethod
    def me() -> _Op[dict[str, Any]]:
        return _Op("GET", "/v1/me", dict)


def _batches(drafts: Iterable[FactDraft], o: ImportOptions) -> list[list[FactDraft]]:
    """``import_facts``'s batches, cut as ``Memory.import_facts`` cuts them and within the
    server's limit of facts without a vector per request."""
    return import_batches(
        drafts,
        o.get("batch_size", IMPORT_BATCH_SIZE),
        o.get("observed_at") or datetime.now(UTC),
        max_unembedded=MAX_BATCH_UNEMBEDDED,
    )
