"""Errors as RFC 9457 ``application/problem+json``: the one place HTTP codes are decided.

Every error hmem raises maps through ``PROBLEMS`` (most specific class first); HTTP-only
conditions (no key, a key that may not reach a user, a body too large) have their own
exceptions here. A problem never echoes the request's input: it could hold memory text,
and an id quoted in a message is withheld (a caller-chosen id may be a secret).
"""

from __future__ import annotations

import logging
import re
import traceback
from dataclasses import dataclass
from typing import Any

import pydantic
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from hmem import errors

__all__ = [
    "NO_MODEL_RESPONSE",
    "PROBLEM_RESPONSES",
    "Forbidden",
    "Problem",
    "ProblemSpec",
    "Unauthenticated",
    "install",
    "log_unhandled",
    "problem_for",
    "problem_response",
]

log = logging.getLogger("hmem.api")
MEDIA_TYPE = "application/problem+json"


class Unauthenticated(Exception):
    """No API key, or one that is malformed, unknown or revoked."""


class Forbidden(Exception):
    """A valid key that may not reach this user."""


class PayloadTooLarge(Exception):
    """The request body is over ``api_max_body_bytes``."""


class RequestTimeout(errors.RetryableError):
    """A ``/v1`` request did not finish within ``api_request_timeout_s``."""


class WriteInFlight(errors.RetryableError):
    """A write with this Idempotency-Key is still running in this process."""


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    type: str = Field(description="A URN naming the kind of problem")
    title: str
    status: int
    detail: str | None = None
    error: str | None = Field(None, description="hmem's error class, e.g. NotFoundError")
    kind: str | None = Field(None, description="for a policy refusal: what was refused")
    errors: list[dict[str, Any]] | None = Field(None, description="invalid fields, by location")
    request_id: str | None = None


@dataclass(frozen=True)
class ProblemSpec:
    slug: str
    title: str
    status: int


# Order matters: the first class an error is an instance of wins.
PROBLEMS: tuple[tuple[type[Exception], ProblemSpec], ...] = (
    (errors.PolicyRefusal, ProblemSpec("policy-refusal", "Refused by the write policy", 422)),
    (errors.ValidationError, ProblemSpec("invalid-input", "Invalid input", 422)),
    # A model's own validation escaping the domain is still the caller's bad input.
    (pydantic.ValidationError, ProblemSpec("invalid-input", "Invalid input", 422)),
    (errors.NotFoundError, ProblemSpec("not-found", "Not found", 404)),
    (errors.UserErasedError, ProblemSpec("user-erased", "The user was erased", 409)),
    (errors.ConflictError, ProblemSpec("conflict", "Conflicts with the stored state", 409)),
    (errors.SchemaError, ProblemSpec("schema", "Database schema not ready", 503)),
    (errors.KeyRevokedError, ProblemSpec("unauthenticated", "Missing or invalid API key", 401)),
    (errors.ModelAuthError, ProblemSpec("model-auth", "Model service refused our key", 502)),
    (errors.ModelError, ProblemSpec("model-output", "Model service answered badly", 502)),
    (
        errors.ErasureInProgressError,
        ProblemSpec("erasure-in-progress", "The user is being erased; retry", 503),
    ),
    (
        errors.BookmarkWaitError,
        ProblemSpec("bookmark-wait", "The database has not caught up with your write", 503),
    ),
    (RequestTimeout, ProblemSpec("timeout", "The request did not finish in time", 503)),
    (errors.RetryableError, ProblemSpec("unavailable", "Temporarily unavailable", 503)),
    # Not a fault and not transient: this server has no model for that (the detail names
    # the variables to set), so 501 rather than 503 with its Retry-After.
    (
        errors.ModelNotConfiguredError,
        ProblemSpec("model-not-configured", "No model is configured for this", 501),
    ),
    (errors.ConfigError, ProblemSpec("config", "Server misconfigured", 500)),
    (errors.HmemError, ProblemSpec("internal", "Internal error", 500)),
    (Unauthenticated, ProblemSpec("unauthenticated", "Missing or invalid API key", 401)),
    (Forbidden, ProblemSpec("forbidden", "This key may not reach that user", 403)),
    (PayloadTooLarge, ProblemSpec("too-large", "Request body too large", 413)),
)
_INTERNAL = ProblemSpec("internal", "Internal error", 500)


def _type(slug: str) -> str:
    return f"urn:hmem:problem:{slug}"


# pydantic's messages quote the input ("input_value='...'"): it could be memory text.
_INPUT = re.compile(r"input_value=.*?, input_type=\w+|For further information visit \S+")


# hmem's messages quote the ids they are about ("no fact 'x' for this user"), which is
# right in a traceback and wrong in an answer: a caller-chosen id may itself be a secret,
# and proxies log error bodies. The caller knows what it sent.
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def _detail(exc: BaseException) -> str | None:
    if isinstance(exc, pydantic.ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ())) or 'input'}: {e.get('msg', '')}"
            for e in exc.errors()
        )
    return _QUOTED.sub("[withheld]", _INPUT.sub("", str(exc))).strip() or None


# An outage's own message names the server it could not reach (a private address):
# the caller learns only what is down.
_UNAVAILABLE = (
    (errors.StoreUnavailableError, "the database is unavailable; retry later"),
    (errors.BookmarkWaitError, "the write named by Hmem-Bookmark is not readable yet; retry"),
    (
        RequestTimeout,
        "the request did not finish in time; a write may still land: retry it with the "
        "same Idempotency-Key",
    ),
    (
        WriteInFlight,
        "a request with this Idempotency-Key is still running; retry with the same key",
    ),
    (errors.ModelUnavailableError, "a model service is unavailable; retry later"),
    (errors.RetryableError, "temporarily unavailable; retry later"),
)


def problem_for(exc: BaseException) -> tuple[Problem, dict[str, str]]:
    """The problem document and extra headers for an exception."""
    spec = next((s for cls, s in PROBLEMS if isinstance(exc, cls)), _INTERNAL)
    if spec is _INTERNAL or spec.slug == "internal":
        detail = None
    elif isinstance(exc, errors.RetryableError):
        detail = next(text for cls, text in _UNAVAILABLE if isinstance(exc, cls))
    else:
        detail = _detail(exc)
    headers: dict[str, str] = {}
    if spec.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="hmem"'
    if spec.status == 503:
        headers["Retry-After"] = "1"
    if spec.status == 500:
        # The server is in a state it did not plan for: do not reuse this connection.
        headers["Connection"] = "close"
    problem = Problem(
        type=_type(spec.slug),
        title=spec.title,
        status=spec.status,
        detail=detail,
        error=type(exc).__name__ if isinstance(exc, errors.HmemError) else None,
        kind=exc.kind if isinstance(exc, errors.PolicyRefusal) else None,
    )
    return problem, headers


def problem_response(
    problem: Problem, request_id: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = problem.model_copy(update={"request_id": request_id}).model_dump(exclude_none=True)
    return JSONResponse(body, status_code=problem.status, media_type=MEDIA_TYPE, headers=headers)


def _request_id(request: Request) -> str | None:
    value = request.scope.get("state", {}).get("request_id")
    return value if isinstance(value, str) else None


def _describe(status: int) -> str:
    return {
        401: "Missing, malformed, unknown or revoked API key",
        403: "The key's tenant or user list does not include this user",
        404: "No such fact for this user (another tenant's ids are simply not found)",
        409: "The operation does not fit the stored state, or the user was erased "
        "after the write was accepted (nothing was stored)",
        413: "Request body over the configured limit",
        422: "Invalid input, or refused by the write policy",
        503: "Neo4j unavailable or schema not ready; retry",
    }[status]


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {
        "model": Problem,
        "description": _describe(status),
        "content": {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    for status in (401, 403, 404, 409, 413, 422, 503)
}
# Only the routes that need a model can answer 501.
NO_MODEL_RESPONSE: dict[int | str, dict[str, Any]] = {
    501: {
        "model": Problem,
        "description": "no language model is configured; the detail names the variables",
        "content": {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
}


def log_unhandled(exc: BaseException) -> None:
    """One structured line for an unexpected error: its class and where it was raised
    (file, line, function), never its message or any value: a driver or pydantic
    message could quote a parameter (memory text, an embedding)."""
    frames = [
        f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}:{frame.name}"
        for frame in traceback.extract_tb(exc.__traceback__)[-8:]
    ]
    log.error(
        "unhandled",
        extra={"event": "unhandled", "error": type(exc).__name__, "frames": frames},
    )


def install(app: FastAPI) -> None:
    """Register the handlers: hmem's tree, HTTP-only errors, validation, the rest."""

    async def on_known(request: Request, exc: Exception) -> JSONResponse:
        problem, headers = problem_for(exc)
        if problem.status >= 500:
            log.warning(
                "error",
                extra={"event": "error", "error": type(exc).__name__, "status": problem.status},
            )
        return problem_response(problem, _request_id(request), headers)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        fields = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        problem = Problem(
            type=_type("invalid-input"),
            title="Invalid input",
            status=422,
            detail="the request does not match the API's schema",
            errors=fields,
        )
        return problem_response(problem, _request_id(request))

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        slug = {404: "no-route", 405: "method-not-allowed"}.get(exc.status_code, "http")
        problem = Problem(
            type=_type(slug), title=str(exc.detail), status=exc.status_code, detail=None
        )
        return problem_response(problem, _request_id(request), dict(exc.headers or {}))

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        log_unhandled(exc)
        problem, headers = problem_for(exc)
        return problem_response(problem, _request_id(request), headers)

    for cls, _ in PROBLEMS:
        app.add_exception_handler(cls, on_known)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
