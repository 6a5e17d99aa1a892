"""A running job's lease is short and renewed while the job runs (issue 45, N14).

On both queues (the SQLite file, and the shared Redis with its password) with real
``hmem worker`` processes: a live worker's job that runs for several leases is not taken
over (one model call, one attempt); a worker killed with SIGKILL mid-job has its job,
and the same user's later session behind it, taken over and done within the default
lease, not after the 300 s lease of bfbbee5. Every session is written exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from hmem import Config, Memory
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer

pytestmark = pytest.mark.slow

LEASE_S = 1.5  # phase 1: a lease the slow job outlives four times over
SLACK_S = 15.0  # a busy two-core machine: process start, a poll, the write itself


def _echo_fact(body: dict[str, Any]) -> dict[str, Any]:
    words = body["messages"][-1]["content"].split("USER'S MESSAGES:\n", 1)[1].strip()
    fact = {"text": f"Lease said: {words}", "category": "episodic", "importance": 3}
    return {"facts": [{**fact, "event_date": None, "entities": [], "relations": []}]}


def _wait(what: str, ok: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(params=["sqlite", "redis"])
def queue_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Where the jobs wait: a SQLite file, or the password-protected Redis of
    ``scripts/redis`` (a database of this test's own, emptied)."""
    secret = "lease-" + uuid.uuid4().hex * 2
    if request.param == "sqlite":
        yield {"HMEM_QUEUE_PATH": str(tmp_path / "queue.sqlite3"), "HMEM_SERVER_SECRET": secret}
        return
    url = request.getfixturevalue("redis_url")
    redis = pytest.importorskip("redis", reason="the shared queue needs hmem[queue]")
    queue_url = url.rsplit("/", 1)[0] + "/5"
    redis.Redis.from_url(queue_url).flushdb()
    yield {"HMEM_QUEUE_URL": queue_url, "HMEM_SERVER_SECRET": secret}
    redis.Redis.from_url(queue_url).flushdb()


def test_a_live_jobs_lease_is_renewed_and_a_killed_workers_is_taken_over(
    config: Config,
    driver: Driver,
    fake_openai: FakeOpenAIServer,
    queue_env: dict[str, str],
) -> None:
    model = {
        "HMEM_LLM_BASE_URL": fake_openai.base_url,
        "HMEM_LLM_API_KEY": FAKE_API_KEY,
        "HMEM_EMBED_PROVIDER": "openai",
        "HMEM_EMBED_BASE_URL": fake_openai.base_url,
        "HMEM_EMBED_API_KEY": FAKE_API_KEY,
    }
    base = {k: v for k, v in os.environ.items() if k != "HMEM_JOB_LEASE_S"}
    env = {**base, **model, **queue_env}
    settings = Config(
        **{
            **config.model_dump(),
            "queue_path": Path(queue_env.get("HMEM_QUEUE_PATH", config.queue_path)),
            "queue_url": queue_env.get("HMEM_QUEUE_URL"),
            "server_secret": queue_env["HMEM_SERVER_SECRET"],
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "embed_provider": "openai",
            "embed_base_url": fake_openai.base_url,
            "embed_api_key": FAKE_API_KEY,
        }
    )
    assert settings.job_lease_s <= 30  # bfbbee5: 300 s
    memory = Memory(settings, driver=driver)
    user = f"lease-{uuid.uuid4().hex[:10]}"
    procs: list[subprocess.Popen[bytes]] = []

    def worker(lease_s: float | None = None) -> subprocess.Popen[bytes]:
        extra = {} if lease_s is None else {"HMEM_JOB_LEASE_S": str(lease_s)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "hmem.cli", "worker", "--poll", "0.1"],
            env={**env, **extra},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(proc)
        return proc

    def send(n: int) -> str:
        result = memory.add(
            f"session {n} of {user}",
            user_id=user,
            background=True,
            observed_at=datetime(2026, 1, n + 1, 10, tzinfo=UTC),
        )
        assert result.job_id is not None
        return result.job_id

    def done(job_id: str) -> bool:
        return memory.job(job_id, user_id=user).status == "done"

    try:
        # 1. A live job four leases long, two workers polling: never taken over.
        slow_started = threading.Event()

        def slow(body: dict[str, Any]) -> dict[str, Any]:
            slow_started.set()
            time.sleep(4 * LEASE_S)
            return _echo_fact(body)

        fake_openai.queue_chat(slow)
        first = send(0)
        worker(LEASE_S), worker(LEASE_S)
        assert slow_started.wait(120), "no worker took the first session"
        _wait("the slow session", lambda: done(first), 120)
        assert fake_openai.chat_calls == 1  # nobody ran it a second time
        assert memory.job(first, user_id=user).attempts == 1
        for proc in procs:
            proc.terminate()
            proc.wait(30)

        # 2. kill -9 of a worker (the default lease) mid-job, a later session behind it.
        asked, killed = threading.Event(), threading.Event()

        def hang(body: dict[str, Any]) -> dict[str, Any]:
            asked.set()
            killed.wait(120)  # its worker is dead: nobody reads this
            return _echo_fact(body)

        fake_openai.queue_chat(hang, _echo_fact, _echo_fact)
        held, behind = send(1), send(2)
        victim = worker()
        assert asked.wait(120), "the worker never reached the model"
        victim.send_signal(signal.SIGKILL)
        victim.wait(30)
        killed_at = time.monotonic()
        killed.set()
        worker()
        _wait("the killed worker's session", lambda: done(held), settings.job_lease_s + SLACK_S)
        _wait("the session behind it", lambda: done(behind), SLACK_S)
        waited = time.monotonic() - killed_at
        assert waited < settings.job_lease_s + SLACK_S, waited

        texts = [f.text for f in memory.facts(user_id=user, include_closed=True)]
        for n in range(3):
            assert texts.count(f"Lease said: session {n} of {user}") == 1, texts
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(30)
        memory.erase_user(user)
        memory.shutdown()
