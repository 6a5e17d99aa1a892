"""Three ``hmem serve`` replicas and two ``hmem worker`` processes on one Neo4j and one
Redis queue (issue 38): 300 sessions sent round-robin with idempotency keys, 20 % sent
twice through another replica; one replica and one worker SIGKILLed mid-run and started
again; Neo4j restarted once while sessions keep arriving. Every accepted session is
applied exactly once: checked in Cypher (0 lost, 0 duplicated facts or episodes).

Needs a local Neo4j this test may restart (``HMEM_NEO4J_HOME``, as ``scripts/test``
sets) and ``HMEM_TEST_REDIS_URL``. Nothing waits a fixed time: every step waits for a
condition (a port answering, a count reached) with a generous deadline.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.api.auth import stored_user_id
from hmem.localdb import LocalNeo4j
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration._services import unavailable
from tests.integration.test_api_fixtures import Tenant, fresh_tenant

redis = pytest.importorskip("redis", reason="the shared queue needs hmem[queue]")

pytestmark = [pytest.mark.redis, pytest.mark.slow]

SESSIONS = 300
USERS = 10
DEADLINE_S = 600.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait(what: str, ok: Callable[[], bool], timeout: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _echo_fact(body: dict[str, Any]) -> dict[str, Any]:
    words = body["messages"][-1]["content"].split("USER'S MESSAGES:\n", 1)[1].strip()
    fact = {"text": f"Maya said: {words}", "category": "episodic", "importance": 3}
    return {"facts": [{**fact, "event_date": None, "entities": [], "relations": []}]}


@dataclass
class Fleet:
    """The processes of the run, each restartable in place."""

    env: dict[str, str]
    ports: list[int]
    replicas: list[subprocess.Popen[bytes]] = field(default_factory=list)
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def serve(self, n: int) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-m", "hmem.cli", "serve", "--port", str(self.ports[n])]
        return subprocess.Popen(
            [*cmd, "--no-init-schema"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def work(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "hmem.cli", "worker", "--poll", "0.1"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def healthy(self, n: int) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.ports[n]}/healthz", timeout=2).is_success
        except httpx.TransportError:
            return False

    def stop(self) -> None:
        for proc in [*self.replicas, *self.workers]:
            if proc.poll() is None:
                proc.terminate()
        for proc in [*self.replicas, *self.workers]:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "loop") as t:
        yield t


def test_replicas_and_workers_apply_every_session_exactly_once(
    config: Config, driver: Driver, tenant: Tenant, redis_url: str
) -> None:
    home = os.environ.get("HMEM_NEO4J_HOME")
    if not home:  # Neo4j is restarted mid-run: it must be one `hmem neo4j` manages
        unavailable(
            "needs a local Neo4j (HMEM_NEO4J_HOME) to restart", required="HMEM_REQUIRE_NEO4J"
        )
    queue_url = redis_url.rsplit("/", 1)[0] + "/3"  # a database of its own
    redis.Redis.from_url(queue_url).flushdb()
    users = [tenant.user("loop") for _ in range(USERS)]
    run = secrets.token_hex(4)
    with FakeOpenAIServer(chat_replies=[_echo_fact] * (SESSIONS * 3)) as fake:
        env = {
            **os.environ,
            "HMEM_QUEUE_URL": queue_url,
            "HMEM_SERVER_SECRET": "loopback-" + run * 8,
            "HMEM_API_WORKER": "false",
            "HMEM_JOB_LEASE_S": "5",
            "HMEM_LLM_BASE_URL": fake.base_url,
            "HMEM_LLM_API_KEY": FAKE_API_KEY,
            "HMEM_EMBED_PROVIDER": "openai",
            "HMEM_EMBED_BASE_URL": fake.base_url,
            "HMEM_EMBED_API_KEY": FAKE_API_KEY,
            "HMEM_API_LOG_JSON": "true",
        }
        fleet = Fleet(env=env, ports=[_free_port() for _ in range(3)])
        try:
            fleet.replicas = [fleet.serve(n) for n in range(3)]
            fleet.workers = [fleet.work() for _ in range(2)]
            for n in range(3):
                _wait(f"replica {n}", lambda n=n: fleet.healthy(n))
            _run(fleet, tenant, users, run, config)
        finally:
            fleet.stop()
    _check_in_cypher(driver, tenant, users, run)


def _run(fleet: Fleet, tenant: Tenant, users: list[str], run: str, config: Config) -> None:
    auth = {"Authorization": f"Bearer {tenant.key}"}
    start = datetime(2026, 1, 1, tzinfo=UTC)
    jobs: dict[int, str] = {}
    turn = 0

    def send(i: int, via: int) -> str:
        """Send session ``i`` until a replica accepts it (a balancer's retry: the next
        replica, the same idempotency key)."""
        nonlocal turn
        body = {
            "messages": [{"role": "user", "content": f"{run} session {i} word{i}x{run}"}],
            "observed_at": (start + timedelta(minutes=i)).isoformat(),
            "background": True,
            "idempotency_key": f"{run}-{i}",
        }
        deadline = time.monotonic() + DEADLINE_S
        replica = via
        while time.monotonic() < deadline:
            url = f"http://127.0.0.1:{fleet.ports[replica]}/v1/users/{users[i % USERS]}/messages"
            try:
                answer = httpx.post(url, json=body, headers=auth, timeout=30)
                if answer.status_code in (200, 202):
                    return str(answer.json()["job_id"])
                assert answer.status_code == 503, answer.text
            except httpx.TransportError:
                pass
            replica = (replica + 1) % 3
            time.sleep(0.05)
        raise AssertionError(f"session {i} was never accepted")

    local = LocalNeo4j(
        config.neo4j_home,
        bolt_port=int(config.neo4j_uri.rsplit(":", 1)[-1].split("/")[0]),
        http_port=config.neo4j_http_port,
        version=config.neo4j_version,
        tls=config.neo4j_tls == "optional",
    )
    restart = threading.Thread(target=lambda: (local.stop(), local.start(timeout=600)))
    for i in range(SESSIONS):
        jobs[i] = send(i, turn % 3)
        turn += 1
        if i % 5 == 0:  # 20 % sent twice, through another replica
            assert send(i, turn % 3) == jobs[i]
            turn += 1
        if i == 60:
            fleet.workers[0].send_signal(signal.SIGKILL)  # mid-job: it runs them back to back
            fleet.workers[0].wait()
        if i == 90:
            fleet.workers[0] = fleet.work()
        if i == 120:
            fleet.replicas[1].send_signal(signal.SIGKILL)
            fleet.replicas[1].wait()
        if i == 150:
            fleet.replicas[1] = fleet.serve(1)
        if i == 200:
            restart.start()  # sessions keep arriving while Neo4j restarts
    restart.join()
    _wait("replica 1 back", lambda: fleet.healthy(1))
    for i in range(0, SESSIONS, 5):  # a resend after everything still finds its job
        assert send(i, (i + 2) % 3) == jobs[i]

    def all_done() -> bool:
        for i, job_id in jobs.items():
            url = f"http://127.0.0.1:{fleet.ports[i % 3]}/v1/users/{users[i % USERS]}/jobs/{job_id}"
            try:
                answer = httpx.get(url, headers=auth, timeout=30)
            except httpx.TransportError:
                return False
            if answer.status_code != 200 or answer.json()["status"] != "done":
                assert answer.status_code in (200, 503), answer.text
                assert answer.status_code == 503 or answer.json()["status"] != "failed", answer.text
                return False
            assert answer.json()["result"]["bookmarks"]  # reachable from the job status
        return True

    _wait("every session done", all_done)


def _check_in_cypher(driver: Driver, tenant: Tenant, users: list[str], run: str) -> None:
    stored = [stored_user_id(tenant.name, u) for u in users]
    records, _, _ = driver.execute_query(
        "UNWIND $users AS uid "
        "MATCH (f:Fact {user_id: uid}) WHERE f.text STARTS WITH $prefix "
        "RETURN f.text AS text, count(*) AS n",
        users=stored,
        prefix=f"Maya said: {run} session ",
    )
    facts = {r["text"]: r["n"] for r in records}
    expected = {f"Maya said: {run} session {i} word{i}x{run}" for i in range(SESSIONS)}
    lost = expected - set(facts)
    duplicated = {t: n for t, n in facts.items() if n > 1}
    assert (len(lost), len(duplicated), set(facts) - expected) == (0, 0, set())
    [row], _, _ = driver.execute_query(
        "UNWIND $users AS uid MATCH (e:Episode {user_id: uid}) "
        "RETURN count(e) AS episodes, count(DISTINCT e.id) AS ids",
        users=stored,
    )
    assert (row["episodes"], row["ids"]) == (SESSIONS, SESSIONS)
