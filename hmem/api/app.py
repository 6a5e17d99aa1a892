"""The FastAPI application: one Neo4j driver per process, owned by the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from anyio import CapacityLimiter
from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from neo4j import Driver
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hmem import __version__
from hmem.api import problems
from hmem.api.auth import Authenticator
from hmem.api.bookmarks import BookmarkHeaders, BookmarkSeal, read_after_bookmark
from hmem.api.metrics import Metrics
from hmem.api.pages import install_pages
from hmem.api.routes import router
from hmem.api.schemas import Health, Readiness
from hmem.config import Config
from hmem.graph.apikeys import KeyStore
from hmem.graph.ops import memory_stats, readiness
from hmem.memory import Memory, make_driver
from hmem.telemetry import RouteTemplateSpans

__all__ = ["create_app"]

log = logging.getLogger("hmem.api")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
# Every answer may carry memory (facts, an export, an error about a fact): no cache along
# the way keeps it, and no browser reads a JSON body as something else.
_PRIVATE = ((b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"))

DESCRIPTION = """\
Graph-backed, bitemporal memory for AI agents. Every route under `/v1/users/{user_id}`
acts on one user of the caller's tenant; send the API key as `Authorization: Bearer
<key>` (or `X-API-Key`). Errors are `application/problem+json` (RFC 9457). Times are
ISO-8601 with a timezone. Metrics for Prometheus at `/metrics`.
"""


class ServiceMiddleware:
    """Request id, body-size limit, request metrics and one log line per request."""

    def __init__(
        self, app: ASGIApp, *, metrics: Metrics, max_body: int, deadline_s: float = 25.0
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body = max_body
        self.deadline_s = deadline_s

    async def _bounded(self, scope: Scope, receive: Receive, send: Send, rid: str) -> None:
        """A ``/v1`` request answered within ``deadline_s``: past it a 503 (the handler's
        thread finishes on its own; a write it makes is safe to retry with the same
        Idempotency-Key), never a client timing out on a silent server."""
        started: list[bool] = []
        answered: list[bool] = []

        async def send_marked(message: Message) -> None:
            if answered:
                return  # the deadline answered already: the late handler's answer is dropped
            if message["type"] == "http.response.start":
                started.append(True)
            await send(message)

        # Not wait_for: a sync handler's thread cannot be cancelled, and wait_for would
        # wait for it. The request is answered at the deadline; the handler finishes on
        # its own (its exception, if any, is logged by _orphan_done).
        task = asyncio.ensure_future(self.app(scope, receive, send_marked))
        done, _ = await asyncio.wait({task}, timeout=self.deadline_s)
        if task in done or started:
            await task
            return
        answered.append(True)
        task.add_done_callback(_orphan_done)
        problem, headers = problems.problem_for(
            problems.RequestTimeout(
                f"the request did not finish within {self.deadline_s:g} s; a write may "
                "still land: retry with the same Idempotency-Key"
            )
        )
        await problems.problem_response(problem, rid, headers)(scope, receive, send)

    async def _read_bounded(self, receive: Receive) -> bytes | None:
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"".join(parts)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            parts.append(chunk)
            if not message.get("more_body", False):
                return b"".join(parts)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, rid: str) -> None:
        problem, _ = problems.problem_for(
            problems.PayloadTooLarge(f"the body is over {self.max_body} bytes")
        )
        await problems.problem_response(problem, rid)(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        started = time.perf_counter()
        status = 500
        responded = False

        async def send_wrapped(message: Message) -> None:
            nonlocal status, responded
            if message["type"] == "http.response.start":
                responded = True
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", request_id.encode()),
                    *_PRIVATE,
                ]
            await send(message)

        try:
            length = int(headers.get(b"content-length", b"-1") or -1)
        except ValueError:
            length = -1
        try:
            if length > self.max_body:
                await self._too_large(scope, receive, send_wrapped, request_id)
            elif length < 0 and scope.get("method") in ("POST", "PUT", "PATCH"):
                # Chunked: read up to the limit first, then replay it to the app.
                body = await self._read_bounded(receive)
                if body is None:
                    await self._too_large(scope, receive, send_wrapped, request_id)
                else:
                    await self.app(scope, _replay(body, receive), send_wrapped)
            elif str(scope.get("path", "")).startswith("/v1/"):
                await self._bounded(scope, receive, send_wrapped, request_id)
            else:
                await self.app(scope, receive, send_wrapped)
        except Exception as exc:  # every error ends here, never in uvicorn
            # Past this point uvicorn would print the traceback with its locals' reprs
            # (a whole request body, an embedding) outside the structured log.
            problems.log_unhandled(exc)
            status = 500
            if not responded:
                problem, headers = problems.problem_for(exc)
                await problems.problem_response(problem, request_id, headers)(
                    scope, receive, send_wrapped
                )
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            elapsed = time.perf_counter() - started
            method = scope.get("method", "")
            self.metrics.requests.labels(method, template, str(status)).inc()
            self.metrics.request_seconds.labels(method, template).observe(elapsed)
            log.info(
                "request",
                extra={
                    "event": "request",
                    "method": method,
                    "route": template,
                    "status": status,
                    "ms": round(elapsed * 1000, 2),
                    "request_id": request_id,
                    "tenant": state.get("tenant"),
                    "key_id": state.get("key_id"),
                },
            )


def _orphan_done(task: asyncio.Future[None]) -> None:
    """A handler answered by the deadline ended: its error, if any, is logged as one."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        problems.log_unhandled(exc)


def _plain_pairs(node: Any) -> Any:
    """A ``tuple[str, str]`` (prefixItems of one type) as an array of exactly two of that
    type: the same constraint, in a shape every OpenAPI tool reads."""
    if isinstance(node, dict):
        out = {k: _plain_pairs(v) for k, v in node.items()}
        prefix = out.get("prefixItems")
        if isinstance(prefix, list) and prefix and all(p == prefix[0] for p in prefix):
            del out["prefixItems"]
            out["items"] = prefix[0]
        return out
    if isinstance(node, list):
        return [_plain_pairs(v) for v in node]
    return node


def _metrics_allowed(request: Request, config: Config) -> bool:
    """With ``api_metrics_token``: that bearer token. Without: loopback clients only."""
    token = config.api_metrics_token
    if token is not None:
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token.get_secret_value()}".encode())
    host = request.client.host if request.client else ""
    return host in ("127.0.0.1", "::1", "localhost")


def _replay(body: bytes, receive_more: Receive) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:  # later calls wait for the client's disconnect, as usual
            return await receive_more()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _walk_routes(app: FastAPI) -> None:
    """Ask the router for a path none of its routes matches, so it builds them all now:
    FastAPI prepares each route (its parameters' validators) when a request first
    reaches it, 0.3 to 0.9 s on the first request (measured in-process on this app).
    The router alone, not the middleware: no log line, no metric, no user; its 404 is
    raised for the middleware to answer, and dropped here."""
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/v1/__hmem_warm_up__/-",
        "raw_path": b"/v1/__hmem_warm_up__/-",
        "query_string": b"",
        "root_path": "",
        "headers": [],
        "app": app,
        "state": {},
    }

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        return None

    with contextlib.suppress(StarletteHTTPException):  # the 404 it ends in, unanswered
        await app.router(scope, receive, send)


def create_app(config: Config | None = None, *, driver: Driver | None = None) -> FastAPI:
    """The app. Pass ``driver`` to share one (tests); otherwise the lifespan opens one
    at startup and closes it at shutdown."""
    config = config or Config()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        drv = driver or make_driver(config)
        memory = Memory(config, driver=drv)
        keys = KeyStore(drv, database=config.neo4j_database)
        app.state.memory = memory
        app.state.driver = drv
        app.state.bookmark_seal = BookmarkSeal(memory.secret)
        app.state.search_slots = CapacityLimiter(config.api_search_concurrency)
        app.state.auth = Authenticator(
            keys, ttl_s=config.api_key_cache_s, outage_s=config.api_key_outage_s
        )
        memory.ingest.add_listener(metrics.count_session)
        try:
            # the first search then costs about what a warm one does (docs/api.md)
            await asyncio.to_thread(memory.warm_up)
            # and the key lookup every first request makes (a key no one holds: None)
            await asyncio.to_thread(keys.verify, "hmem_000000000000_" + "w" * 32)
            await _walk_routes(app)
        except Exception as exc:  # never fatal: /readyz reports what is down
            log.warning("warm-up skipped", extra={"event": "warm_up", "error": repr(exc)})
        if config.api_worker:
            memory.start_worker()  # background adds run here; shutdown() stops it
        try:
            yield
        finally:
            memory.shutdown()
            waits = getattr(app.state, "bookmark_driver", None)
            if waits is not None:
                await waits.close()
            if driver is None:
                drv.close()

    app = FastAPI(
        title="hmem",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        responses={413: problems.PROBLEM_RESPONSES[413]},
        docs_url=None,  # served by install_pages, from files hmem ships: no CDN
        redoc_url=None,
        # FastAPI's own OpenTelemetry logs would record validation failures with their
        # messages, which can quote a body's text; its spans stay (RouteTemplateSpans).
        telemetry={"logs": False},
    )
    app.state.config = config
    app.state.metrics = metrics
    metrics.watch_store(
        lambda: (
            memory_stats(app.state.driver, config.neo4j_database)
            if hasattr(app.state, "driver")
            else {}
        )
    )
    problems.install(app)
    app.add_middleware(
        ServiceMiddleware,
        metrics=metrics,
        max_body=config.api_max_body_bytes,
        deadline_s=config.api_request_timeout_s,
    )
    # an instrumentation wraps the whole app: this runs inside its server span
    app.add_middleware(RouteTemplateSpans, user_ids=config.otel_user_id)
    # reads wait for the write a sent Hmem-Bookmark names; answers carry one (bookmarks.py)
    app.add_middleware(BookmarkHeaders)
    app.include_router(router, dependencies=[Depends(read_after_bookmark)])
    install_pages(app, title="hmem")

    make_spec = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _plain_pairs(make_spec())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    # async: answered on the event loop, never queued behind handlers waiting for Neo4j
    @app.get("/healthz", tags=["ops"], summary="Liveness: the process answers")
    async def healthz() -> Health:
        return Health(status="ok", version=__version__)

    @app.get(
        "/readyz",
        tags=["ops"],
        summary="Readiness: Neo4j reachable and hmem's schema present",
        response_model=Readiness,
        responses={503: {"model": Readiness, "description": "not ready"}},
    )
    def readyz(request: Request) -> Any:
        checks = readiness(request.app.state.driver, config.neo4j_database, config.embedding_dim)
        ready = all(v == "ok" for v in checks.values())
        body = Readiness(
            status="ready" if ready else "not_ready",
            checks=checks,
            capabilities=request.app.state.memory.capabilities(),
        )
        return JSONResponse(body.model_dump(), status_code=200 if ready else 503)

    @app.get("/metrics", include_in_schema=False)
    def prometheus(request: Request) -> Response:
        # The counts span every tenant: an operator's view, not a caller's.
        if not _metrics_allowed(request, config):
            raise StarletteHTTPException(404, "Not Found")
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    return app
