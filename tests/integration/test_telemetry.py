"""OpenTelemetry spans: they exist, nest, and carry ids and counts, never text, keys or
vectors (the SDK's in-memory exporter; a real Neo4j and the fake model server)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.models import FactDraft
from hmem.telemetry import Telemetry
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_write_path import fact, model_config

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

SECRET_WORDS = ("Biscuit", "Lisbon", "rainy", "cat", "Where", FAKE_API_KEY)


def _telemetry(mode: str = "hash") -> tuple[Telemetry, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Telemetry(True, user_ids=mode, tracer_provider=provider), exporter  # type: ignore[arg-type]


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
    hashed = hashlib.sha256(user_id.encode()).hexdigest()[:16]
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
