"""The versioned routes: ``/v1/users/{user_id}/...`` for one user's memory.

Every route takes the caller (``principal``) and turns the API user id into the stored
one through ``Principal.scope``; no handler touches a user id any other way. Handlers
are plain functions (FastAPI runs them in its thread pool) over the process's one
``Memory``; a search waits for one of its own few threads (``api_search_concurrency``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

from anyio import CapacityLimiter, to_thread
from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import BaseModel
from pydantic_core import to_json

from hmem.api.auth import USER_ID_PATTERN, Principal, principal, queueing_principal
from hmem.api.bookmarks import seal_for
from hmem.api.idempotent import in_flight, replayed, write_ids
from hmem.api.metrics import Metrics
from hmem.api.problems import NO_MODEL_RESPONSE, PROBLEM_RESPONSES
from hmem.api.schemas import (
    AddIn,
    AddOut,
    AuditEvent,
    AuditPage,
    CloseIn,
    Erased,
    FactPage,
    JobOut,
    ProfileIn,
    ProfileOut,
    RememberIn,
    RememberManyIn,
    RestoreIn,
    SearchIn,
    UtcDatetime,
)
from hmem.errors import NotFoundError, PolicyRefusal
from hmem.ingest.ingestor import accepting_key
from hmem.memory import Memory
from hmem.models import Fact, FactHistory, SupersedeTarget, UserExport, WriteResult
from hmem.recall.models import SearchResult

__all__ = ["router"]

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")
W = TypeVar("W", bound=BaseModel)

router = APIRouter(prefix="/v1", responses=PROBLEM_RESPONSES)

UserId = Annotated[
    str,
    Path(
        pattern=USER_ID_PATTERN,
        description="the user, as your tenant names it (letters, digits, . _ @ -; no ':')",
    ),
]
FactIdPath = Annotated[str, Path(min_length=1, max_length=128, description="a fact id")]
Caller = Annotated[Principal, Depends(principal)]
# The one route a cached key may use while Neo4j is down: accepting a session into the
# durable queue (its job checks the key again before it writes).
QueueingCaller = Annotated[Principal, Depends(queueing_principal)]


def _memory(request: Request) -> Memory:
    memory: Memory = request.app.state.memory
    return memory


def _metrics(request: Request) -> Metrics:
    metrics: Metrics = request.app.state.metrics
    return metrics


def _relabeled(model: BaseModel, user_id: str) -> Any:
    """The model's data with every ``user_id`` as the caller names the user."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: user_id if k == "user_id" else walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(model.model_dump(by_alias=True))


def _relabel(model: M, user_id: str) -> M:
    """The same document with every ``user_id`` as the caller names the user."""
    return type(model).model_validate(_relabeled(model, user_id))


def _relabel_json(model: BaseModel, user_id: str) -> Response:
    """``_relabel`` as the JSON response itself, for the hot routes: FastAPI would
    validate the model again and encode it in Python; pydantic's encoder writes the
    bytes at once (the route's ``response_model`` still documents the shape)."""
    return Response(to_json(_relabeled(model, user_id)), media_type="application/json")


def _read(request: Request, op: str, call: Callable[[], R]) -> R:
    with _metrics(request).read_seconds.labels(op).time():
        return call()


@router.get("/me", tags=["keys"], summary="The caller's tenant and reach")
def whoami(who: Caller) -> dict[str, Any]:
    return {
        "tenant": who.tenant,
        "key_id": who.key.key_id,
        "user_ids": list(who.key.user_ids) if who.key.user_ids is not None else None,
    }


@router.post(
    "/users/{user_id}/facts",
    status_code=201,
    tags=["write"],
    summary="Remember one fact directly (no model); may supersede older facts",
)
def remember(
    user_id: UserId, body: RememberIn, who: Caller, request: Request, response: Response
) -> WriteResult:
    uid = who.scope(user_id)
    ids = write_ids(request, uid, [body.id])
    with in_flight(ids):
        if ids and (again := replayed(_memory(request), uid, ids, [body.text], response)):
            return again
        result = _write(
            request,
            "remember",
            lambda: _memory(request).remember(
                body.text,
                user_id=uid,
                category=body.category,
                importance=body.importance,
                observed_at=body.observed_at,
                valid_from=body.valid_from,
                valid_to=body.valid_to,
                entities=body.entities,
                supersedes=body.supersedes,
                reason=body.reason,
                relates=body.relates,
                embedding=body.embedding,
                source=body.source,
                fact_id=ids[0] if ids else body.id,
                speaker=body.speaker,
                infer=body.infer,
            ),
        )
        reasons = _reasons(body.supersedes, body.reason)
        reasons.update({link.old_id: link.reason.value for link in result.inferred})
        _metrics(request).count_write("remember", result, reasons)
        _metrics(request).count_inferred(result)
        return _sealed(request, who, result)


def _sealed(request: Request, who: Principal, result: W) -> W:
    """``result`` with its Neo4j bookmarks sealed for the caller's tenant: the same
    token ``Hmem-Bookmark`` carries, never the database's transaction counter."""
    marks: list[str] = getattr(result, "bookmarks", None) or []
    if not marks:
        return result
    return result.model_copy(update={"bookmarks": [seal_for(request, who.tenant, marks)]})


def _sealed_job(request: Request, who: Principal, public: dict[str, Any]) -> dict[str, Any]:
    done = public.get("result")
    if isinstance(done, dict) and done.get("bookmarks"):
        sealed = [seal_for(request, who.tenant, done["bookmarks"])]
        public = {**public, "result": {**done, "bookmarks": sealed}}
    return public


def _write(request: Request, path: str, call: Callable[[], WriteResult]) -> WriteResult:
    """A direct write; a refusal by the write policy is counted as one."""
    try:
        return call()
    except PolicyRefusal as exc:
        metrics = _metrics(request)
        metrics.write_requests.labels(path).inc()
        metrics.write_ops.labels("refused").inc()
        metrics.policy_refusals.labels(exc.kind).inc()
        raise


def _reasons(targets: Sequence[str | SupersedeTarget], reason: str) -> dict[str, str]:
    """Why each superseded fact was replaced, for the metrics: a target's own reason, or
    the body's for a bare id."""
    return dict(
        (t.target_id, str(t.reason)) if isinstance(t, SupersedeTarget) else (t, reason)
        for t in targets
    )


@router.post(
    "/users/{user_id}/facts/batch",
    status_code=201,
    tags=["write"],
    summary="Remember many facts in one transaction (no model): remember_many",
)
def remember_many(
    user_id: UserId, body: RememberManyIn, who: Caller, request: Request, response: Response
) -> WriteResult:
    uid = who.scope(user_id)
    drafts = body.facts
    ids = write_ids(request, uid, [d.id for d in drafts])
    with in_flight(ids):
        if ids is not None:
            texts = [d.text for d in drafts]
            if again := replayed(_memory(request), uid, ids, texts, response):
                return again
            drafts = [d.model_copy(update={"id": i}) for d, i in zip(drafts, ids, strict=True)]
        result = _write(
            request,
            "remember_many",
            lambda: _memory(request).remember_many(
                drafts, user_id=uid, observed_at=body.observed_at, session_id=body.session_id
            ),
        )
        reasons = {t.target_id: str(t.reason) for f in body.facts for t in f.supersedes}
        _metrics(request).count_write("remember_many", result, reasons)
        return _sealed(request, who, result)


@router.get("/users/{user_id}/facts", tags=["read"], summary="List facts, now or as of a time")
def list_facts(
    user_id: UserId,
    who: Caller,
    request: Request,
    as_of: Annotated[
        UtcDatetime | None, Query(description="belief time: what was believed then")
    ] = None,
    as_of_event: Annotated[
        UtcDatetime | None, Query(description="world time: what was true then")
    ] = None,
    include_closed: Annotated[bool, Query(description="every fact, open or closed")] = False,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> FactPage:
    uid = who.scope(user_id)
    facts = _read(
        request,
        "list",
        lambda: _memory(request).facts(
            user_id=uid,
            as_of=as_of,
            as_of_event=as_of_event,
            include_closed=include_closed,
            limit=limit,
            offset=offset,
        ),
    )
    return FactPage(
        items=[_relabel(f, user_id) for f in facts],
        limit=limit,
        offset=offset,
        next_offset=offset + limit if len(facts) == limit else None,
    )


@router.get("/users/{user_id}/facts/{fact_id}", tags=["read"], summary="One fact")
def get_fact(
    user_id: UserId,
    fact_id: FactIdPath,
    who: Caller,
    request: Request,
    as_of: Annotated[
        UtcDatetime | None, Query(description="belief time: the fact as believed then")
    ] = None,
) -> Fact:
    uid = who.scope(user_id)
    fact = _read(request, "get", lambda: _memory(request).get(fact_id, user_id=uid, as_of=as_of))
    return _relabel(fact, user_id)


@router.get(
    "/users/{user_id}/facts/{fact_id}/history",
    tags=["read"],
    summary="A fact with what it replaced and what replaced it",
)
def history(
    user_id: UserId,
    fact_id: FactIdPath,
    who: Caller,
    request: Request,
    as_of: Annotated[
        UtcDatetime | None, Query(description="belief time: the chain as believed then")
    ] = None,
) -> FactHistory:
    uid = who.scope(user_id)
    chain = _read(
        request, "history", lambda: _memory(request).history(fact_id, user_id=uid, as_of=as_of)
    )
    return _relabel(chain, user_id)


@router.post(
    "/users/{user_id}/facts/{fact_id}/close",
    tags=["write"],
    summary="Close a fact with no successor (it stopped being true, or never was)",
)
def close(
    user_id: UserId, fact_id: FactIdPath, body: CloseIn, who: Caller, request: Request
) -> Fact:
    uid = who.scope(user_id)
    fact = _memory(request).close(
        fact_id, user_id=uid, at=body.at, observed_at=body.observed_at, reason=body.reason
    )
    _metrics(request).corrections.labels(body.reason).inc()
    return _relabel(fact, user_id)


@router.post(
    "/users/{user_id}/facts/{fact_id}/restore",
    tags=["write"],
    summary="Undo a supersession or retraction: the fact is believed again",
)
def restore(
    user_id: UserId,
    fact_id: FactIdPath,
    who: Caller,
    request: Request,
    body: RestoreIn | None = None,
) -> Fact:
    uid = who.scope(user_id)
    observed = None if body is None else body.observed_at
    fact = _memory(request).restore(fact_id, user_id=uid, observed_at=observed)
    _metrics(request).corrections.labels("restore").inc()
    return _relabel(fact, user_id)


@router.delete(
    "/users/{user_id}/facts/{fact_id}",
    tags=["erase"],
    summary="Really delete one fact, its vector and its episodes (not undoable)",
)
def erase_fact(user_id: UserId, fact_id: FactIdPath, who: Caller, request: Request) -> Erased:
    uid = who.scope(user_id)
    metrics = _metrics(request)
    with metrics.erasure_seconds.labels("fact").time():
        counts = _memory(request).erase(fact_id, user_id=uid)
    metrics.erasures.labels("fact").inc()
    metrics.corrections.labels("erase_fact").inc()
    return Erased(erased=counts)


@router.delete(
    "/users/{user_id}",
    tags=["erase"],
    summary="Erase everything stored for a user (right to be forgotten; not undoable)",
)
def erase_user(user_id: UserId, who: Caller, request: Request) -> Erased:
    uid = who.scope(user_id)
    metrics = _metrics(request)
    with metrics.erasure_seconds.labels("user").time():
        counts = _memory(request).erase_user(uid)
    metrics.erasures.labels("user").inc()
    return Erased(erased=counts)


@router.get("/users/{user_id}/export", tags=["read"], summary="Everything stored for a user")
def export(user_id: UserId, who: Caller, request: Request) -> UserExport:
    uid = who.scope(user_id)
    data = _read(request, "export", lambda: _memory(request).export(uid))
    return _relabel(data, user_id)


@router.get(
    "/users/{user_id}/audit",
    tags=["read"],
    summary="The audit trail: operations and fact ids, never text",
)
def audit(
    user_id: UserId,
    who: Caller,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> AuditPage:
    uid = who.scope(user_id)
    rows = _read(request, "audit", lambda: _memory(request).audit(user_id=uid, limit=limit))
    return AuditPage(items=[AuditEvent.model_validate(r) for r in rows])


@router.post(
    "/users/{user_id}/messages",
    tags=["write"],
    summary="Remember a chat session (one extractor call); background=true answers 202",
    responses={
        202: {"model": AddOut, "description": "accepted: poll the job"},
        **NO_MODEL_RESPONSE,
    },
)
def add(
    user_id: UserId, body: AddIn, who: QueueingCaller, request: Request, response: Response
) -> AddOut:
    uid = who.scope(user_id)
    metrics = _metrics(request)
    accepted_by = accepting_key.set(who.key.key_id)  # the job records it (key_check)
    try:
        result = _memory(request).add(
            [m.model_dump(exclude_none=True) for m in body.messages],
            user_id=uid,
            observed_at=body.observed_at,
            session_id=body.session_id,
            background=body.background,
            idempotency_key=body.idempotency_key or request.headers.get("idempotency-key"),
        )
    finally:
        accepting_key.reset(accepted_by)
    out = _sealed(request, who, AddOut.model_validate(result.as_dict(), from_attributes=False))
    # the session's own dials are counted when its job completes (Metrics.count_session)
    metrics.write_requests.labels("add").inc()
    if body.background:
        response.status_code = 202
    return out


@router.get("/users/{user_id}/jobs/{job_id}", tags=["write"], summary="A session's job status")
def job(user_id: UserId, job_id: FactIdPath, who: Caller, request: Request) -> JobOut:
    uid = who.scope(user_id)
    found = _memory(request).job(job_id, user_id=uid)
    return JobOut.model_validate({**_sealed_job(request, who, found.public()), "user_id": user_id})


@router.post(
    "/users/{user_id}/jobs/{job_id}/retry",
    tags=["write"],
    summary="Queue a failed session again",
)
def retry_job(user_id: UserId, job_id: FactIdPath, who: Caller, request: Request) -> JobOut:
    uid = who.scope(user_id)
    found = _memory(request).retry_job(job_id, user_id=uid)
    return JobOut.model_validate({**_sealed_job(request, who, found.public()), "user_id": user_id})


@router.post(
    "/users/{user_id}/search",
    tags=["read"],
    summary="Recall: hybrid search, one hop of history, a context block in a token budget",
    response_model=SearchResult,
)
async def search(user_id: UserId, body: SearchIn, who: Caller, request: Request) -> Response:
    uid = who.scope(user_id)

    def run() -> Response:
        found = _read(
            request,
            "search",
            lambda: _memory(request).search(
                body.query,
                user_id=uid,
                k=body.k,
                token_budget=body.token_budget,
                as_of=body.as_of,
                as_of_event=body.as_of_event,
                now=body.now,
            ),
        )
        return _relabel_json(found, user_id)

    # At most api_search_concurrency searches at once, the rest queued first come first
    # served (anyio's limiter is FIFO): run all at once, the cores were shared among
    # them and every one took as long as the slowest (docs/api.md).
    slots: CapacityLimiter = request.app.state.search_slots
    return await to_thread.run_sync(run, limiter=slots)


@router.get("/users/{user_id}/profile", tags=["read"], summary="The user's running profile")
def profile(user_id: UserId, who: Caller, request: Request) -> ProfileOut:
    uid = who.scope(user_id)
    found = _read(request, "profile", lambda: _memory(request).profile(user_id=uid))
    if found is None:
        raise NotFoundError("no profile for this user yet")
    return ProfileOut.model_validate(found)


@router.put(
    "/users/{user_id}/profile",
    tags=["write"],
    summary="Write the profile yourself (at most 120 words; the write policy applies)",
)
def set_profile(user_id: UserId, body: ProfileIn, who: Caller, request: Request) -> ProfileOut:
    uid = who.scope(user_id)
    memory = _memory(request)
    memory.set_profile(body.text, user_id=uid)
    found = memory.profile(user_id=uid)
    assert found is not None
    return ProfileOut.model_validate(found)
