"""A store written without any model still gets an entity graph (spaCy)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from neo4j import Driver

from hmem import Config, Memory
from hmem.cli import main
from hmem.models import EntityRef, FactDraft
from tests.integration._recall_fixtures import MODEL, local_embedder
from tests.unit.extract.test_entities import needs_trained


def _entities(memory: Memory, user_id: str) -> dict[str, str]:
    return {e.name: e.type for e in memory.export(user_id).entities}


def test_remember_links_known_names_without_a_trained_pipeline(
    config: Config, driver: Driver, user_id: str
) -> None:
    memory = Memory(config.model_copy(update={"ner": "known"}), driver=driver)
    memory.remember(
        "Maya adopted a cat.",
        user_id=user_id,
        entities=[EntityRef(name="Maya", type="person"), EntityRef(name="Miso", aliases=["Mi"])],
    )
    written = memory.remember("mi sleeps on maya's desk in Paris.", user_id=user_id)
    fact = memory.get(written.added[0], user_id=user_id)
    assert fact.entities == ["Maya", "Miso"]  # known names only: Paris is unknown
    assert memory.store.entity_links(user_id) == {"links": 4, "entities": 2, "facts": 2}


def test_explicit_entities_and_ner_off_are_respected(
    config: Config, driver: Driver, user_id: str
) -> None:
    memory = Memory(config.model_copy(update={"ner": "off"}), driver=driver)
    memory.remember("Maya met Sam.", user_id=user_id, entities=["Sam"])
    memory.remember("Sam met Maya again.", user_id=user_id)
    assert _entities(memory, user_id) == {"Sam": "thing"}
    assert memory.store.entity_links(user_id)["links"] == 1


@needs_trained
def test_remember_many_links_what_the_trained_pipeline_finds(memory: Memory, user_id: str) -> None:
    when = datetime(2023, 5, 8, tzinfo=UTC)
    drafts = [
        FactDraft(text="Yesterday Caroline went to an LGBTQ support group in Boston."),
        FactDraft(text="Last week Melanie painted a sunrise over Lake Michigan."),
        FactDraft(text="Nothing to name here.", entities=[]),
    ]
    result = memory.remember_many(drafts, user_id=user_id, observed_at=when)
    facts = {
        memory.get(i, user_id=user_id).text: memory.get(i, user_id=user_id) for i in result.added
    }
    assert {"Caroline", "Boston"} <= set(facts[drafts[0].text].entities)
    assert "Melanie" in facts[drafts[1].text].entities
    assert facts[drafts[2].text].entities == []
    assert "Lake Michigan" in facts[drafts[1].text].entities
    types = _entities(memory, user_id)
    assert types["Boston"] == "place"
    assert types["Caroline"] == "person"


@pytest.mark.parametrize("ner", ["auto", "known"])
def test_model_free_import_yields_entity_links(
    config: Config,
    driver: Driver,
    user_id: str,
    tmp_path: Path,
    ner: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in config.model_dump(mode="json").items():
        if key in ("neo4j_uri", "neo4j_home", "neo4j_database", "neo4j_user") and value:
            monkeypatch.setenv(f"HMEM_{key.upper()}", str(value))
    monkeypatch.setenv("HMEM_NER", ner)
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "none")
    sessions = tmp_path / "sessions.jsonl"
    lines = [
        {
            "observed_at": "2023-05-08T13:56:00Z",
            "session_id": "s1",
            "messages": [
                {
                    "role": "user",
                    "name": "Caroline",
                    "content": "Melanie and I went hiking near Seattle.",
                },
                {"role": "assistant", "content": "Sounds lovely, Caroline!"},
                {"role": "user", "content": "My password is hunter2"},
            ],
        },
        {
            "observed_at": "2023-05-25T13:14:00Z",
            "session_id": "s2",
            "messages": [{"role": "user", "content": "melanie now works in Seattle."}],
        },
    ]
    sessions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    memory = Memory(config, driver=driver)
    memory.remember("Melanie is my friend.", user_id=user_id, entities=[EntityRef(name="Melanie")])
    runner = CliRunner()
    out = runner.invoke(main, ["import", "--user", user_id, "--no-model", str(sessions)])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output.splitlines()[-1])
    assert summary["sessions"] == 2
    assert summary["added"] == 2
    assert summary["refused"] == 1  # the password line; the assistant's line is no source
    links = 2 + (2 if ner == "auto" else 0)  # Melanie twice (+ Seattle twice when trained)
    assert summary["entity_links"] == links
    texts = {f.text: f for f in memory.facts(user_id=user_id)}
    assert texts["melanie now works in Seattle."].known_from == datetime(
        2023, 5, 25, 13, 14, tzinfo=UTC
    )
    # the message's name is who said the turn; a message without one has no speaker
    assert texts["Melanie and I went hiking near Seattle."].speaker == "caroline"
    assert texts["melanie now works in Seattle."].speaker is None
    again = runner.invoke(main, ["import", "--user", user_id, "--no-model", str(sessions)])
    assert json.loads(again.output.splitlines()[-1])["added"] == 0  # idempotent


def _cli_env(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI in this process reaches the test Neo4j and sees no language model."""
    for key, value in config.model_dump(mode="json").items():
        if key in ("neo4j_uri", "neo4j_home", "neo4j_database", "neo4j_user") and value:
            monkeypatch.setenv(f"HMEM_{key.upper()}", str(value))
    for name in ("HMEM_LLM_BASE_URL", "HMEM_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HMEM_NER", "known")


def test_import_with_no_model_configured_goes_model_free_and_says_so(
    config: Config,
    driver: Driver,
    user_id: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _cli_env(config, monkeypatch)
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "none")
    sessions = tmp_path / "sessions.jsonl"
    line = {
        "observed_at": "2023-05-08T13:56:00Z",
        "session_id": "s1",
        "messages": [
            {"role": "user", "content": "Melanie and I went hiking."},
            {"role": "user", "content": "Melanie paints on Sundays."},
        ],
    }
    sessions.write_text(json.dumps(line) + "\n")
    memory = Memory(config, driver=driver)
    memory.remember("Melanie is my friend.", user_id=user_id, entities=[EntityRef(name="Melanie")])
    runner = CliRunner()

    out = runner.invoke(main, ["import", "--user", user_id, str(sessions)])
    assert out.exit_code == 0, out.output
    notes = out.stderr.splitlines()
    [no_model] = [n for n in notes if "HMEM_LLM_BASE_URL" in n]
    assert "each user message as one fact" in no_model and "spaCy (blank-en)" in no_model
    [no_vectors] = [n for n in notes if "HMEM_EMBED_MODEL_DIR" in n]
    assert "no vectors" in no_vectors and "hmem reembed" in no_vectors
    summary = json.loads(out.stdout.splitlines()[-1])
    assert (summary["added"], summary["entity_links"]) == (2, 2)  # Melanie in both turns

    # asking for the extractor when there is none is an error naming what to set
    required = runner.invoke(main, ["import", "--user", user_id, "--model", str(sessions)])
    assert required.exit_code == 1
    assert "ModelNotConfiguredError" in required.output and "HMEM_LLM_BASE_URL" in required.output


def test_import_embeds_when_an_embedder_is_configured(
    config: Config,
    driver: Driver,
    user_id: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedder = local_embedder()
    _cli_env(config, monkeypatch)
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "local")
    monkeypatch.setenv("HMEM_EMBED_MODEL_DIR", str(MODEL))
    facts = tmp_path / "facts.jsonl"
    facts.write_text(
        json.dumps(
            {"text": "Caroline has a dog called Rex.", "observed_at": "2024-01-01T00:00:00Z"}
        )
        + "\n"
    )
    out = CliRunner().invoke(main, ["import", "facts", "--user", user_id, str(facts)])
    assert out.exit_code == 0, out.output
    assert "no embedding model" not in out.output
    with Memory(config, driver=driver, embedder=embedder) as memory:
        [hit] = memory.search("Which pets does Caroline own?", user_id=user_id).hits
        memory.recall.flush()
    assert hit.parts["dense"] > 0


def _ner_reads(exporter: Any) -> list[int]:
    """How many texts each entity-finder span read, in order."""
    return [
        int((s.attributes or {})["hmem.texts"])
        for s in exporter.get_finished_spans()
        if s.name == "hmem.find_entities"
    ]


@needs_trained
def test_remember_many_reads_only_the_rows_that_name_no_entity(
    config: Config, driver: Driver, user_id: str
) -> None:
    """Entities are a model's output like vectors: a row that gives them is not read by
    the NER (and keeps exactly its own), a batch that gives them all runs no NER, and
    with the finder off no row is read."""
    sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from hmem.telemetry import Telemetry

    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = Telemetry(True, user_ids="plain", tracer_provider=provider)
    given = FactDraft(
        text="Caroline flew to Boston with Melanie.", entities=[EntityRef(name="Caroline")]
    )
    bare = FactDraft(text="Melanie painted a sunrise over Lake Michigan.")
    memory = Memory(config.model_copy(update={"ner": "auto"}), driver=driver, telemetry=telemetry)
    try:
        result = memory.remember_many([given, bare], user_id=user_id)
        assert _ner_reads(exporter) == [1]
        facts = {memory.get(i, user_id=user_id).text: i for i in result.added}
        assert memory.get(facts[given.text], user_id=user_id).entities == ["Caroline"]
        assert "Melanie" in memory.get(facts[bare.text], user_id=user_id).entities

        memory.remember_many(
            [
                FactDraft(
                    text="Caroline met Sam in Paris.",
                    entities=[EntityRef(name="Caroline"), EntityRef(name="Sam")],
                ),
                FactDraft(text="Sam called Melanie from Rome.", entities=[EntityRef(name="Sam")]),
            ],
            user_id=user_id,
        )
        assert _ner_reads(exporter) == [1]  # every row named its own: no NER at all
    finally:
        memory.shutdown()

    off = Memory(config.model_copy(update={"ner": "off"}), driver=driver, telemetry=telemetry)
    try:
        written = off.remember_many(
            [FactDraft(text="Caroline drove to Chicago with Melanie.")], user_id=user_id
        )
        assert _ner_reads(exporter) == [1]
        assert off.get(written.added[0], user_id=user_id).entities == []
    finally:
        off.shutdown()
