"""OpenTelemetry spans: they exist, nest, and carry ids and counts, never text, keys or
vectors (the SDK's in-memory exporter; a real Neo4j and the fake model server)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.api import create_app
from hmem.models import FactDraft
from hmem.secret import keyed_ref
from hmem.telemetry import Telemetry
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import fresh_tenant
from tests.integration.test_write_path import fact, model_config

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from fastapi.testclient import TestClient  # noqa: E402
from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind  # noqa: E402

SECRET_WORDS = ("Biscuit", "Lisbon", "rainy", "cat", "Where", FAKE_API_KEY)


SERVER_SECRET = b"a test server secret, 32 bytes.."


def _telemetry(mode: str = "hash") -> tuple[Telemetry, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = Telemetry(True, user_ids=mode, tracer_provider=provider, secret=SERVER_SECRET)  # type: ignore[arg-type]
    return telemetry, exporter


def test_spans_nest_and_carry_no_text_keys_or_vectors(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path, user_id: str
) -> None:
    telemetry, exporter = _telemetry()
    memory = Memory(
        model_config(config, fake_openai, tmp_path / "queue.sqlite3", ner="known"),
        driver=driver,
        telemetry=telemetry,
    )
    try:
        written = memory.remember("Maya's cat Biscuit sleeps all day.", user_id=user_id)
        memory.remember_many(
            [FactDraft(text="Maya moved to Lisbon."), FactDraft(text="Maya likes rainy days.")],
            user_id=user_id,
        )
        fake_openai.queue_chat({"facts": [fact("Maya adopted a second cat.")]})
        added = memory.add(
            [{"role": "user", "content": "I adopted a second cat."}], user_id=user_id
        )
        result = memory.search("Where does Maya live?", user_id=user_id, k=5)
    finally:
        memory.shutdown()
    assert result.hits

    spans = exporter.get_finished_spans()
    by_name: dict[str, list[sdk_trace.ReadableSpan]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    assert {"hmem.remember", "hmem.remember_many", "hmem.add", "hmem.job", "hmem.search"} <= set(
        by_name
    )
    assert "embeddings fake-embed" in by_name
    assert "hmem.find_entities" in by_name

    # nesting: entity finding and embedding inside remember; the job inside add
    [remember] = by_name["hmem.remember"]
    children = {s.name for s in spans if s.parent and s.parent.span_id == remember.context.span_id}
    assert {"hmem.find_entities", "embeddings fake-embed"} <= children
    [add] = by_name["hmem.add"]
    [job] = by_name["hmem.job"]
    assert job.parent is not None and job.parent.span_id == add.context.span_id

    # the conventions' attributes, ids and counts
    # keyed (HMAC with the server secret): a dictionary of ids does not reverse it
    hashed = keyed_ref(SERVER_SECRET, "otel-user", user_id)[:16]
    assert hashed != hashlib.sha256(user_id.encode()).hexdigest()[:16]
    attrs = remember.attributes or {}
    assert attrs["db.system.name"] == "neo4j"
    assert attrs["db.operation.name"] == "remember"
    assert attrs["hmem.user_id"] == hashed
    assert attrs["hmem.added"] == len(written.added)
    assert (by_name["hmem.remember_many"][0].attributes or {})["hmem.added"] == 2
    assert (job.attributes or {})["hmem.job_id"] == added.job_id
    search = by_name["hmem.search"][0].attributes or {}
    assert search["hmem.k"] == 5 and search["hmem.hits"] == len(result.hits)
    embed = by_name["embeddings fake-embed"][0].attributes or {}
    assert embed["gen_ai.operation.name"] == "embeddings"
    assert embed["gen_ai.request.model"] == "fake-embed"

    # never text, keys, vectors or the plain user id
    for span in spans:
        for key, value in (span.attributes or {}).items():
            assert not isinstance(value, tuple | list), (span.name, key)  # no vectors
            shown = str(value)
            assert user_id not in shown, (span.name, key)
            for word in SECRET_WORDS:
                assert word not in shown, (span.name, key, word)


def test_disabled_by_default_and_plain_ids_on_request(
    config: Config, driver: Driver, user_id: str
) -> None:
    memory = Memory(config, driver=driver)
    assert not memory.telemetry.enabled  # off unless configured
    telemetry, exporter = _telemetry("plain")
    memory = Memory(config, driver=driver, telemetry=telemetry)
    memory.remember("Maya is a chess player.", user_id=user_id, entities=["Maya"])
    [span] = exporter.get_finished_spans()
    assert (span.attributes or {})["hmem.user_id"] == user_id


def global_spans() -> InMemorySpanExporter:
    """An in-memory exporter on the global SDK tracer provider (installed if none is,
    as `hmem serve` does with HMEM_OTEL_ENABLED): what FastAPI's own server spans and
    hmem's spans of a served app go to. Shut it down after use (the provider keeps its
    processors; a shut exporter keeps no more spans)."""
    if not isinstance(trace.get_tracer_provider(), sdk_trace.TracerProvider):
        trace.set_tracer_provider(sdk_trace.TracerProvider())
    provider = trace.get_tracer_provider()
    assert isinstance(provider, sdk_trace.TracerProvider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


@pytest.mark.parametrize("mode", ["hash", "off", "plain"])
def test_http_spans_carry_route_templates_not_user_or_fact_ids(
    config: Config, driver: Driver, memory: Memory, tmp_path: Path, mode: str
) -> None:
    settings = config.model_copy(
        update={"queue_path": tmp_path / "queue.sqlite3", "otel_user_id": mode}
    )
    exporter = global_spans()  # FastAPI traces every request once a provider is installed
    try:
        with (
            fresh_tenant(driver, memory, "otel") as tenant,
            TestClient(create_app(settings, driver=driver)) as client,
        ):
            user = tenant.user("zqxotel")
            client.headers["Authorization"] = f"Bearer {tenant.key}"
            r = client.post(
                f"/v1/users/{user}/facts", json={"id": "zqxfact", "text": "Otel Ann likes tea."}
            )
            assert r.status_code == 201, r.text
            assert client.get(f"/v1/users/{user}/facts/zqxfact").status_code == 200
            assert (
                client.get(f"/v1/users/{user}/facts", params={"as_of": "2099-01-01T00:00:00Z"})
            ).status_code == 200
            assert client.delete(f"/v1/users/{user}/facts/zqxfact").status_code == 200
            assert client.delete(f"/v1/users/{user}").status_code == 200
    finally:
        exporter.shutdown()
    spans = [s for s in exporter.get_finished_spans() if s.kind is SpanKind.SERVER]
    assert len(spans) == 5
    shown = [str(v) for s in spans for v in [s.name, *(s.attributes or {}).values()]]
    if mode == "plain":  # the operator asked for ids: the instrumentation's own view
        assert any(user in v for v in shown)
        return
    for value in shown:
        for raw in (user, "zqxfact", "2099"):
            assert raw not in value, (raw, value)
    paths = {(s.attributes or {})["url.path"] for s in spans}
    assert paths == {
        "/v1/users/{user_id}/facts",
        "/v1/users/{user_id}/facts/{fact_id}",
        "/v1/users/{user_id}",
    }
    assert {(s.attributes or {})["url.query"] for s in spans} == {""}
