"""Issue 12's smaller defects, each over the real thing: a full disk, a real uvicorn, the CLI.

- a full disk under the job queue is a 503, and nothing accepted is lost;
- an unexpected error is a 500 with ``Connection: close``, logged as one structured line
  (class and frames, no values) and never as uvicorn's traceback;
- dates with no UTC equivalent are refused by the client and the CLI before any request;
- a fact id that could never be addressed is refused at creation;
- ``export`` includes the profile; ``/metrics`` is for loopback (or a token) only;
- the CLI refuses the tenant and user names the API refuses.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
import uvicorn
from click.testing import CliRunner
from neo4j import Driver
from starlette.types import Receive, Scope, Send

from hmem import Config, Memory
from hmem.api import create_app
from hmem.api.app import ServiceMiddleware
from hmem.api.metrics import Metrics
from hmem.cli import main
from hmem.errors import DateRangeError, ValidationError
from hmem.faces.client import Client
from hmem.graph.apikeys import KeyStore
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import fresh_tenant, live_server

MAX_DATE = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(timedelta(hours=-14)))


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs: a disk that really fills up. Needs root (skips otherwise)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path) -> Path:
    """Take every free byte of ``disk``."""
    filler = disk / "filler"
    try:
        with filler.open("wb") as out:
            while True:
                out.write(b"\0" * 4096)
                out.flush()
    except OSError:
        pass
    return filler


def test_full_disk_under_the_queue_is_503_and_nothing_is_lost(
    config: Config,
    driver: Driver,
    memory: Memory,
    tiny_disk: Path,
    fake_openai: FakeOpenAIServer,
) -> None:
    # A model is configured (sessions are accepted only then); no worker runs, so it is
    # never called: the queue's disk is what this is about.
    settings = config.model_copy(
        update={
            "queue_path": tiny_disk / "queue.sqlite3",
            "api_worker": False,
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "llm_model": "fake-chat",
        }
    )
    with (
        fresh_tenant(driver, memory) as tenant,
        live_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        user = tenant.user()
        auth = {"Authorization": f"Bearer {tenant.key}"}

        def post(i: int) -> httpx.Response:
            text = f"Session {i}: " + "I like tea. " * 200
            return http.post(
                f"/v1/users/{user}/messages",
                headers=auth,
                json={"messages": [{"role": "user", "content": text}], "background": True},
            )

        accepted = []
        for i in range(5):
            got = post(i)
            assert got.status_code == 202, got.text
            accepted.append(got.json()["job_id"])
        filler = _fill(tiny_disk)
        refused = [post(i) for i in range(5, 25)]
        statuses = {r.status_code for r in refused}
        assert 503 in statuses and statuses <= {202, 503}, statuses
        for r in refused:
            if r.status_code == 202:
                accepted.append(r.json()["job_id"])
            else:
                assert r.headers["retry-after"]
                assert r.json()["error"] == "QueueUnavailableError"
        # Nothing acknowledged was lost, and once there is room the refused ones go in.
        filler.unlink(missing_ok=True)
        for r, i in zip(refused, range(5, 25), strict=True):
            if r.status_code == 503:
                again = post(i)
                assert again.status_code == 202, again.text
                accepted.append(again.json()["job_id"])
        for job_id in accepted:
            job = http.get(f"/v1/users/{user}/jobs/{job_id}", headers=auth)
            assert job.status_code == 200 and job.json()["status"] == "queued"
        assert len(set(accepted)) == 25


class _Boom:
    """An ASGI app that fails the way an unplanned bug does, carrying a value."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        embedding = [0.123456789] * 8
        raise RuntimeError(f"cannot store {embedding}")


def test_unexpected_error_is_a_closing_500_logged_without_values(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = ServiceMiddleware(_Boom(), metrics=Metrics(), max_body=1_000_000)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None, lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(1500):
            if server.started:
                break
            thread.join(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        with caplog.at_level(logging.INFO), httpx.Client(timeout=30) as http:
            first = http.get(f"http://127.0.0.1:{port}/x")
            second = http.get(f"http://127.0.0.1:{port}/y")  # a fresh connection, no 599
    finally:
        server.should_exit = True
        thread.join(15)
    for got in (first, second):
        assert got.status_code == 500
        assert got.headers["connection"] == "close"
        assert got.headers["content-type"] == "application/problem+json"
        assert "0.123456789" not in got.text
    unhandled = [r for r in caplog.records if getattr(r, "event", None) == "unhandled"]
    assert len(unhandled) == 2
    assert unhandled[0].__dict__["error"] == "RuntimeError"
    assert any("__call__" in f for f in unhandled[0].__dict__["frames"])
    assert not [r for r in caplog.records if r.name.startswith("uvicorn") and r.exc_info]
    assert "0.123456789" not in caplog.text


def test_dates_without_utc_are_refused_by_client_and_cli(user_id: str) -> None:
    with Client("http://127.0.0.1:9", api_key="hmem_000000000000_" + "x" * 32) as client:
        with pytest.raises(DateRangeError):
            client.facts(user_id=user_id, as_of=MAX_DATE)  # refused before any request
        with pytest.raises(DateRangeError):
            client.remember("Maya likes tea.", user_id=user_id, valid_from=MAX_DATE)
    runner = CliRunner()
    for args in (
        ["facts", "--user", user_id, "--as-of", "9999-12-31T23:59:59-14:00"],
        ["facts", "--user", user_id, "--as-of-event", "0001-01-01T00:00:00+14:00"],
        ["remember", "--user", user_id, "--valid-from", "0001-01-01T00:00:00+14:00", "hi"],
    ):
        out = runner.invoke(main, args)
        assert out.exit_code == 2, (args, out.output)
        assert "outside years 1..9999" in out.output
    assert "Traceback" not in out.output


def test_fact_id_that_cannot_be_addressed_is_refused(
    config: Config, driver: Driver, memory: Memory, tmp_path: Path
) -> None:
    settings = config.model_copy(update={"queue_path": tmp_path / "q.sqlite3"})
    with (
        fresh_tenant(driver, memory) as tenant,
        live_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        user = tenant.user()
        auth = {"Authorization": f"Bearer {tenant.key}"}
        for bad in ("a/b", "..", ".", "a?b", "a b", "a%2Fb", "a#b"):
            got = http.post(
                f"/v1/users/{user}/facts", headers=auth, json={"text": "Maya.", "id": bad}
            )
            assert got.status_code == 422, (bad, got.text)
        ok = http.post(
            f"/v1/users/{user}/facts", headers=auth, json={"text": "Maya.", "id": "imp-1.v2"}
        )
        assert ok.status_code == 201
        assert http.get(f"/v1/users/{user}/facts/imp-1.v2", headers=auth).status_code == 200
    with pytest.raises(ValidationError, match="pattern"):
        memory.remember("Maya.", user_id=f"u-{uuid.uuid4().hex}", fact_id="a/b")


def test_export_includes_the_profile(
    config: Config, driver: Driver, memory: Memory, tmp_path: Path
) -> None:
    settings = config.model_copy(update={"queue_path": tmp_path / "q.sqlite3"})
    with (
        fresh_tenant(driver, memory) as tenant,
        live_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        user = tenant.user()
        auth = {"Authorization": f"Bearer {tenant.key}"}
        assert http.get(f"/v1/users/{user}/export", headers=auth).json()["profile"] is None
        put = http.put(
            f"/v1/users/{user}/profile", headers=auth, json={"text": "Maya, 34, lives in Lyon."}
        )
        assert put.status_code == 200
        exported = http.get(f"/v1/users/{user}/export", headers=auth).json()
        assert exported["profile"]["text"] == "Maya, 34, lives in Lyon."
        assert exported["profile"]["updated_at"]


def test_metrics_only_for_loopback_or_the_token(config: Config) -> None:
    def get(app_config: Config, client_host: str, token: str | None = None) -> int:
        transport = httpx.ASGITransport(app=create_app(app_config), client=(client_host, 1))
        headers = {"Authorization": f"Bearer {token}"} if token else {}

        async def fetch() -> int:
            async with httpx.AsyncClient(transport=transport, base_url="http://hmem") as http:
                return (await http.get("/metrics", headers=headers)).status_code

        return asyncio.run(fetch())

    assert get(config, "127.0.0.1") == 200
    assert get(config, "10.1.2.3") == 404
    with_token = Config(**{**config.model_dump(), "api_metrics_token": "s3cret-metrics"})
    assert get(with_token, "10.1.2.3", "s3cret-metrics") == 200
    assert get(with_token, "10.1.2.3", "wrong") == 404
    assert get(with_token, "127.0.0.1") == 404  # a token, once set, is always needed


def test_cli_refuses_names_the_api_refuses(driver: Driver) -> None:
    runner = CliRunner()
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    for args in (
        ["keys", "create", "--tenant", "beta\n"],
        ["keys", "create", "--tenant", "x:y"],
        ["keys", "create", "--tenant", tenant, "--user", "x:y"],
        ["keys", "create", "--tenant", tenant, "--user", "beta\n"],
    ):
        out = runner.invoke(main, args)
        assert out.exit_code != 0, (args, out.output)
        assert "ValidationError" in out.output
    assert KeyStore(driver).list(tenant) == []
    with pytest.raises(ValidationError):
        KeyStore(driver).create(tenant, user_ids=["ok", "a b"])
