"""OpenTelemetry spans for hmem's operations (the optional extra ``hmem[otel]``).

Off unless configured (``HMEM_OTEL_ENABLED=true``): then ``add``, ``search``,
``remember``, ``remember_many`` and each worker job open a span, with the entity
finding and the embedding calls as children. Spans carry timings, ids and counts —
never text, keys or vectors — named and attributed after the OTel database and GenAI
semantic conventions (``db.system.name=neo4j``, ``db.operation.name``,
``db.namespace``; ``gen_ai.operation.name=embeddings``, ``gen_ai.request.model``).
The user id is hashed by default (``HMEM_OTEL_USER_ID=hash|plain|off``): an HMAC
keyed with the server secret (``hmem.secret``), so no dictionary of likely ids reverses
it. With ``hash`` or ``off``, the HTTP server spans (FastAPI's own, made whenever a
tracer provider is installed, or an instrumentation's) get the route template in place
of the raw path (``RouteTemplateSpans``): ``url.path``
``/v1/users/{user_id}/facts/{fact_id}``, never a user or fact id, and no query string
(``as_of`` and the like stay out too).

hmem only uses the OpenTelemetry API: spans go to whatever tracer provider the
application installed. ``hmem serve`` installs the SDK's when enabled
(``setup_tracing``), exporting as the standard ``OTEL_*`` variables say (an
application that set up its own provider, or runs under ``opentelemetry-instrument``,
keeps it).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from hmem.errors import ConfigError
from hmem.secret import keyed_ref

__all__ = ["RouteTemplateSpans", "Span", "Telemetry", "setup_tracing"]

_NEEDS_OTEL = "HMEM_OTEL_ENABLED needs OpenTelemetry: pip install 'hmem[otel]'"

UserIdMode = Literal["hash", "plain", "off"]


class Span:
    """What an hmem operation may add to its span once it knows (counts, ids)."""

    def __init__(self, span: Any = None) -> None:
        self._span = span

    def set(self, **attributes: str | int | float | bool) -> None:
        if self._span is not None:
            for key, value in attributes.items():
                self._span.set_attribute(key.replace("__", "."), value)


class Telemetry:
    """A tracer for hmem, or nothing at all when disabled."""

    def __init__(
        self,
        enabled: bool = False,
        *,
        user_ids: UserIdMode = "hash",
        database: str = "neo4j",
        tracer_provider: Any = None,
        secret: bytes | None = None,
    ) -> None:
        """``secret`` keys the user-id hash (default: random, so hashes of one process
        match each other only; ``Memory`` passes the server secret)."""
        self.enabled = enabled
        self._user_ids = user_ids
        self._database = database
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self._tracer: Any = None
        if enabled:
            try:
                from opentelemetry import trace
            except ImportError as exc:
                raise ConfigError(_NEEDS_OTEL) from exc
            from hmem import __version__

            self._tracer = trace.get_tracer("hmem", __version__, tracer_provider=tracer_provider)

    def _user(self, user_id: str) -> str | None:
        if self._user_ids == "plain":
            return user_id
        if self._user_ids == "hash":
            return keyed_ref(self._secret, "otel-user", user_id)[:16]
        return None

    @contextmanager
    def span(
        self, operation: str, *, user_id: str | None = None, **attributes: str | int | float | bool
    ) -> Iterator[Span]:
        """A span ``hmem.<operation>`` (an hmem operation on its Neo4j database)."""
        if self._tracer is None:
            yield Span()
            return
        attrs: dict[str, Any] = {
            "db.system.name": "neo4j",
            "db.operation.name": operation,
            "db.namespace": self._database,
        }
        if user_id is not None and (user := self._user(user_id)) is not None:
            attrs["hmem.user_id"] = user
        attrs.update({k.replace("__", "."): v for k, v in attributes.items()})
        with self._tracer.start_as_current_span(f"hmem.{operation}", attributes=attrs) as span:
            yield Span(span)

    @contextmanager
    def model_call(self, operation: str, model: str, **attributes: int) -> Iterator[Span]:
        """A GenAI client span ``<operation> <model>`` (e.g. ``embeddings bge-small``)."""
        if self._tracer is None:
            yield Span()
            return
        from opentelemetry.trace import SpanKind

        attrs: dict[str, Any] = {"gen_ai.operation.name": operation, "gen_ai.request.model": model}
        attrs.update({k.replace("__", "."): v for k, v in attributes.items()})
        with self._tracer.start_as_current_span(
            f"{operation} {model}", kind=SpanKind.CLIENT, attributes=attrs
        ) as span:
            yield Span(span)


# What an HTTP server span may say about the request's target: the route template, never
# the path the caller sent (user and fact ids) nor its query (as_of and the like). Both
# the stable names and the older ones (http.target, http.url) an instrumentation may set.
_TARGET_ATTRIBUTES = ("url.path", "http.target")
_DROPPED_ATTRIBUTES = ("url.query", "url.full", "http.url")


class RouteTemplateSpans:
    """ASGI middleware: the current (server) span names the route, not the raw path.

    An HTTP server span records ``url.path`` as sent (``/v1/users/maya/facts/f1``) when
    the request starts: FastAPI's own telemetry (on whenever a tracer provider is
    installed, as ``hmem serve`` does with ``HMEM_OTEL_ENABLED``) or an instrumentation
    wrapping the app. As the response starts (routing done, the span still open: it
    ends with the last body byte) this replaces the path attributes with the matched
    route's template and blanks the query and full URL; again at the end for a span
    that outlives the response. With no tracing, or ``otel_user_id=plain``, it does
    nothing."""

    def __init__(self, app: Any, *, user_ids: UserIdMode) -> None:
        self.app = app
        self.raw_paths = user_ids == "plain"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.raw_paths:
            await self.app(scope, receive, send)
            return

        async def send_redacted(message: Any) -> None:
            if message["type"] == "http.response.start":
                _redact_current_span(scope)
            await send(message)

        try:
            await self.app(scope, receive, send_redacted)
        finally:
            _redact_current_span(scope)


def _redact_current_span(scope: Any) -> None:
    try:
        from opentelemetry import trace
    except ImportError:  # no OpenTelemetry: no spans to redact
        return
    span = trace.get_current_span()
    if not span.is_recording():
        return
    route = getattr(scope.get("route"), "path", None) or "unmatched"
    for name in _TARGET_ATTRIBUTES:
        span.set_attribute(name, route)
    for name in _DROPPED_ATTRIBUTES:
        span.set_attribute(name, "")
    span.set_attribute("http.route", route)
    method = scope.get("method")
    if method:
        span.update_name(f"{method} {route}")


def setup_tracing(enabled: bool, exporter_name: str = "otlp") -> Any:
    """Install the OpenTelemetry SDK's tracer provider (for ``hmem serve``) when enabled
    and none is installed yet. ``exporter_name`` is the standard ``OTEL_TRACES_EXPORTER``
    (read by the caller, at the edge): ``otlp`` (needs
    ``opentelemetry-exporter-otlp-proto-http``, configured by the standard
    ``OTEL_EXPORTER_OTLP_*`` variables), ``console`` or ``none``. Returns the provider,
    or None when nothing was installed."""
    if not enabled:
        return None
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError as exc:
        raise ConfigError(
            "HMEM_OTEL_ENABLED needs OpenTelemetry: pip install 'hmem[otel]'"
        ) from exc
    # a bad setting is an error even when a provider is installed already
    exporter_name = exporter_name.strip().lower()
    if exporter_name not in ("otlp", "console", "none"):
        raise ConfigError(f"OTEL_TRACES_EXPORTER={exporter_name!r}: use otlp, console or none")
    if isinstance(trace.get_tracer_provider(), TracerProvider):
        return None  # the application (or opentelemetry-instrument) already set one up
    provider = TracerProvider()  # resource from OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES
    exporter: Any = None
    if exporter_name == "console":
        exporter = ConsoleSpanExporter()
    elif exporter_name == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise ConfigError(
                "OTEL_TRACES_EXPORTER=otlp needs opentelemetry-exporter-otlp-proto-http "
                "(or set OTEL_TRACES_EXPORTER=console)"
            ) from exc
        exporter = OTLPSpanExporter()
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider
