"""Erased text leaves the job queue too (security review D2), and a fact's erasure
keeps what surviving facts need.

The queue keeps a session's text only while its job needs it: once done, only status,
counts and ids stay. A fact's erasure drops every queued or kept copy of its text; a
user's erasure drops the user's jobs. Each test then scans the queue file and its
write-ahead log (``-wal``, ``-shm``) byte by byte, the JSON log lines, the spans and
/metrics for the erased words, and checks the surviving facts' episodes.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from neo4j import Driver
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hmem import Config, Memory
from hmem.api.logs import JsonFormatter
from hmem.ingest.queue import JobQueue
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server
from tests.integration.test_telemetry import global_spans
from tests.integration.test_write_path import fact, model_config

KEEP, GONE = "ZQXKEEPONE", "ZQXGONEONE"
SESSION, IDEMPOTENCY = "erf-session-zqxsess", "erf-key-zqxidem"


def _queue_bytes(queue: Path) -> bytes:
    """The queue file and its log, as they are on disk (whatever exists of them)."""
    parts = [queue, queue.with_name(queue.name + "-wal"), queue.with_name(queue.name + "-shm")]
    return b"".join(p.read_bytes() for p in parts if p.exists())


class _Lines(logging.Handler):
    """Every log record of the run, as the API's JSON log line."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def logs() -> Iterator[_Lines]:
    handler = _Lines()
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


@pytest.fixture(scope="module")
def queue_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("queue") / "queue.sqlite3"


@pytest.fixture(scope="module")
def spans() -> Iterator[InMemorySpanExporter]:
    """The served app's spans, hmem's and FastAPI's server spans (global provider)."""
    exporter = global_spans()
    yield exporter
    exporter.shutdown()


@pytest.fixture(scope="module")
def server(
    config: Config,
    memory: Memory,
    fake_openai_module: FakeOpenAIServer,
    queue_path: Path,
    spans: InMemorySpanExporter,
) -> Iterator[LiveServer]:
    settings = model_config(
        config,
        fake_openai_module,
        queue_path,
        embed_provider="none",
        api_worker=False,
        otel_enabled=True,
    )
    with live_server(settings) as running:
        yield running


@pytest.fixture(scope="module")
def fake_openai_module() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def acme(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "acme") as t:
        yield t


def _session(api: httpx.Client, user: str, text: str, **extra: object) -> httpx.Response:
    return api.post(
        f"/v1/users/{user}/messages",
        json={"messages": [{"role": "user", "content": text}], **extra},
    )


def _scan(
    words: tuple[str, ...],
    queue: Path,
    logs: _Lines,
    api: httpx.Client,
    spans: InMemorySpanExporter,
) -> dict[str, list[str]]:
    """Where any of ``words`` still is: the queue's bytes, the log lines, the spans'
    names and attributes, /metrics."""
    found: dict[str, list[str]] = {}
    on_disk = _queue_bytes(queue)
    metrics = api.get("/metrics").text
    traced = [
        str(v) for s in spans.get_finished_spans() for v in [s.name, *(s.attributes or {}).values()]
    ]
    for word in words:
        places = []
        if word.encode() in on_disk:
            places.append("queue")
        if any(word in line for line in logs.lines):
            places.append("logs")
        if any(word in value for value in traced):
            places.append("spans")
        if word in metrics:
            places.append("metrics")
        if places:
            found[word] = places
    return found


def test_fact_erase_purges_the_queue_and_keeps_the_surviving_facts_episode(
    server: LiveServer,
    acme: Tenant,
    fake_openai_module: FakeOpenAIServer,
    queue_path: Path,
    logs: _Lines,
    spans: InMemorySpanExporter,
) -> None:
    user = acme.user("erf")
    with httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {acme.key}"}, timeout=120
    ) as api:
        fake_openai_module.queue_chat(
            {"facts": [fact(f"Erf keeps {KEEP}"), fact(f"Erf secret hobby {GONE}")]}
        )
        r = _session(
            api,
            user,
            f"FACT<Erf keeps {KEEP}> FACT<Erf secret hobby {GONE}>",
            session_id=SESSION,
            idempotency_key=IDEMPOTENCY,
        )
        assert r.status_code == 200, r.text
        job_id = r.json()["job_id"]
        # A later session repeating the words waits in the queue (no worker runs here).
        r = _session(api, user, f"Again: Erf secret hobby {GONE}.", background=True)
        assert r.status_code == 202, r.text
        waiting = r.json()["job_id"]

        # done: its text, session id and idempotency key are gone from the queue already
        job = api.get(f"/v1/users/{user}/jobs/{job_id}").json()
        assert job["status"] == "done" and job["result"]["added"]
        with sqlite3.connect(queue_path) as db:
            row = db.execute(
                "SELECT source_text, episode_text, extraction, session_id, idempotency_key "
                "FROM jobs WHERE id = ?",
                (job_id,),
            ).fetchone()
        assert row[:4] == ("", "", None, None)
        assert row[4].startswith("h1:") and IDEMPOTENCY not in row[4]
        assert any(s.name == "hmem.add" for s in spans.get_finished_spans())  # traced
        traced = [str(v) for s in spans.get_finished_spans() for v in (s.attributes or {}).values()]
        assert not any(user in v for v in traced)  # hashed in hmem's, a template in FastAPI's
        assert _scan((KEEP, SESSION, IDEMPOTENCY), queue_path, logs, api, spans) == {}
        # the same key still finds the same job (it is compared hashed)
        r = _session(
            api,
            user,
            f"FACT<Erf keeps {KEEP}> FACT<Erf secret hobby {GONE}>",
            session_id=SESSION,
            idempotency_key=IDEMPOTENCY,
        )
        assert r.json()["job_id"] == job_id

        facts = {f["text"]: f["id"] for f in api.get(f"/v1/users/{user}/facts").json()["items"]}
        gone, keep = facts[f"Erf secret hobby {GONE}"], facts[f"Erf keeps {KEEP}"]
        # and the same session sent again with other words (a client's resend)
        r = _session(api, user, "Erf adds ZQXSAMESESS.", background=True, session_id=SESSION)
        assert r.status_code == 202, r.text
        assert _scan((GONE, "ZQXSAMESESS"), queue_path, logs, api, spans) == {
            GONE: ["queue"],  # the waiting job
            "ZQXSAMESESS": ["queue"],
        }
        r = api.delete(f"/v1/users/{user}/facts/{gone}")
        assert r.status_code == 200, r.text
        # the episode stays (the kept fact came from it); the waiting jobs gave up their text
        assert r.json()["erased"] == {"facts": 1, "episodes": 0, "entities": 0, "jobs": 2}

        assert _scan((GONE, "ZQXSAMESESS"), queue_path, logs, api, spans) == {}
        assert api.get(f"/v1/users/{user}/jobs/{waiting}").json()["status"] == "failed"
        export = api.get(f"/v1/users/{user}/export").json()
        assert GONE not in str(export)
        [episode] = export["episodes"]
        assert KEEP in episode["text"]  # the surviving fact's provenance is intact
        assert api.get(f"/v1/users/{user}/facts/{keep}").status_code == 200

        # erasing the last fact of the session takes the episode too
        r = api.delete(f"/v1/users/{user}/facts/{keep}")
        assert r.json()["erased"]["episodes"] == 1
        assert api.get(f"/v1/users/{user}/export").json()["episodes"] == []

        # and a user's erasure leaves nothing of the user in the queue
        fake_openai_module.queue_chat({"facts": [fact(f"Erf also said {KEEP}")]})
        assert _session(api, user, f"FACT<Erf also said {KEEP}>").status_code == 200
        r = _session(api, user, f"Later: Erf still says {KEEP}.", background=True)
        assert r.status_code == 202
        assert api.delete(f"/v1/users/{user}").json()["erased"]["jobs"] == 5
        assert _scan((KEEP, GONE, SESSION, IDEMPOTENCY), queue_path, logs, api, spans) == {}


def test_an_older_queue_file_is_scrubbed_when_opened(tmp_path: Path) -> None:
    """A queue written by an earlier hmem (plain keys, done jobs with text) is upgraded
    in place: keys hashed, finished jobs' text dropped, the file compacted."""
    path = tmp_path / "queue.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(
            """
            CREATE TABLE jobs (
              id TEXT PRIMARY KEY, user_id TEXT NOT NULL, session_id TEXT,
              idempotency_key TEXT NOT NULL, observed_at TEXT NOT NULL,
              source_text TEXT NOT NULL, episode_text TEXT NOT NULL, refused TEXT NOT NULL,
              ignored INTEGER NOT NULL, status TEXT NOT NULL,
              attempts INTEGER NOT NULL DEFAULT 0, not_before REAL NOT NULL DEFAULT 0,
              lease_until REAL NOT NULL DEFAULT 0, extraction TEXT, result TEXT, error TEXT,
              raw_output TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
              UNIQUE (user_id, idempotency_key));
            """
        )
        db.execute(
            "INSERT INTO jobs VALUES ('j1', 'u', ?, ?, '2026-01-01T00:00:00+00:00', ?, ?, "
            "'[]', 0, 'done', 1, 0, 0, ?, '{}', NULL, NULL, '2026-01-01', '2026-01-01')",
            (SESSION, IDEMPOTENCY, f"text {GONE}", f"user: {GONE}", f'{{"x": "{GONE}"}}'),
        )
    JobQueue(path, secret=b"k" * 32).close()
    on_disk = _queue_bytes(path)
    for word in (GONE, SESSION, IDEMPOTENCY):
        assert word.encode() not in on_disk, word
