"""The tracing setup at the edge (``hmem serve``) and the disabled no-op."""

from __future__ import annotations

import pytest

from hmem.errors import ConfigError
from hmem.telemetry import Telemetry, setup_tracing


def test_disabled_telemetry_is_a_no_op() -> None:
    telemetry = Telemetry()
    with telemetry.span("search", user_id="u1", hmem__k=3) as span:
        span.set(hmem__hits=1)
    with telemetry.model_call("embeddings", "m") as span:
        span.set(hmem__texts=1)
    assert setup_tracing(False) is None


def test_setup_tracing_checks_the_exporter_and_keeps_an_installed_provider() -> None:
    pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    with pytest.raises(ConfigError, match="use otlp, console or none"):
        setup_tracing(True, "zipkin-ish")
    first = setup_tracing(True, "none")
    if first is None:  # another test of this process installed one already
        assert isinstance(trace.get_tracer_provider(), TracerProvider)
    else:
        assert trace.get_tracer_provider() is first
    assert setup_tracing(True, "console") is None  # never replaces an installed provider
