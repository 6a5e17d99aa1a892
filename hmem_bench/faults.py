"""``hmem bench faults``: load with kill -9 of the API, of a worker and of Neo4j.

Issue 45's "Must show": 16 clients for 60 s over HTTP against a real ``hmem serve``
(its in-process worker on) and a separate ``hmem worker``, on a Neo4j of the bench's own
(a temporary home; it is the one killed, never yours) and the shared queue given by
``--queue-url`` (a Redis with its password) or a SQLite file. At spaced times it kills
with SIGKILL, each restarted at once as a supervisor would: the API, the worker, Neo4j.

Each client behaves as a real one: every write carries an Idempotency-Key (a direct
fact write, or a background session), and a write with no 2xx answer (a refused
connection, a 503, a timeout) is sent again with the same key until it is accepted.
Reads go in between. At the end, once the queue is drained, every accepted write is
looked up: accepted = stored, none stored twice. Every request's answer time is kept:
how many took longer than the documented bound (``HMEM_API_REQUEST_TIMEOUT_S``), and,
for the Neo4j outage, how fast its 503s came.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from hmem.api.auth import stored_user_id
from hmem.config import Config
from hmem.graph.apikeys import KeyStore
from hmem.localdb import LocalNeo4j
from hmem.memory import Memory, make_driver
from hmem.testing.openai_server import FAKE_API_KEY, FakeOpenAIServer

__all__ = ["run"]

TENANT = "bench-faults"
CLIENT_TIMEOUT_S = 30.0  # a client's usual timeout, above the server's own bound


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _echo(body: dict[str, Any]) -> dict[str, Any]:
    """The extractor: one fact from the session's words; the change judge (a direct
    write with stored neighbours): nothing changes."""
    content = body["messages"][-1]["content"]
    if "USER'S MESSAGES:\n" not in content:
        return {"judgements": []}
    words = content.split("USER'S MESSAGES:\n", 1)[1].strip()
    fact = {"text": f"Maya said: {words}", "category": "episodic", "importance": 3}
    return {"facts": [{**fact, "event_date": None, "entities": [], "relations": []}]}


@dataclass
class _Call:
    """One HTTP request: when it was sent (seconds into the run), what, how long."""

    at: float
    kind: str  # fact, session, read
    seconds: float
    status: int  # 0: no answer (refused connection, timeout)
    why: str = ""  # a problem's error kind and detail, or the transport error


@dataclass
class _Write:
    kind: str  # fact or session
    user: str
    text: str
    key: str
    accepted: bool = False
    tries: int = 0
    refused: int = 0


@dataclass
class _Log:
    calls: list[_Call] = field(default_factory=list)
    writes: list[_Write] = field(default_factory=list)
    events: list[tuple[float, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Fleet:
    """The API and worker processes, restartable in place."""

    def __init__(self, env: dict[str, str], port: int, logs: Path) -> None:
        self.env, self.port, self.logs = env, port, logs
        self.api: subprocess.Popen[bytes] | None = None
        self.worker: subprocess.Popen[bytes] | None = None

    def serve(self) -> None:
        cmd = [sys.executable, "-m", "hmem.cli", "serve", "--port", str(self.port)]
        with (self.logs / "api.log").open("ab") as out:
            self.api = subprocess.Popen(
                [*cmd, "--no-init-schema"], env=self.env, stdout=out, stderr=subprocess.STDOUT
            )

    def work(self) -> None:
        with (self.logs / "worker.log").open("ab") as out:
            self.worker = subprocess.Popen(
                [sys.executable, "-m", "hmem.cli", "worker", "--poll", "0.1"],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def up(self, timeout: float = 300.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).is_success:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the API did not start")

    def stop(self) -> None:
        for proc in (self.api, self.worker):
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in (self.api, self.worker):
            if proc is None:
                continue
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _kill(proc: subprocess.Popen[bytes] | None) -> None:
    assert proc is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)


class _Client:
    """One client: its own user, writes with keys retried until accepted, reads."""

    def __init__(self, n: int, url: str, key: str, log: _Log, started: float) -> None:
        self.user = f"c{n}-{uuid.uuid4().hex[:6]}"
        self.log, self.started = log, started
        self.http = httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=CLIENT_TIMEOUT_S
        )
        self.rng = random.Random(n)  # noqa: S311 (a load mix, not a secret)
        self.n = 0

    def call(self, kind: str, send: Callable[[], httpx.Response]) -> int:
        at = time.monotonic()
        why = ""
        try:
            answer = send()
            status = answer.status_code
            if status >= 400:
                try:
                    problem = answer.json()
                    why = f"{problem.get('error')}: {problem.get('detail')}"[:160]
                except ValueError:
                    why = answer.text[:160]
        except httpx.HTTPError as exc:
            status, why = 0, type(exc).__name__
        took = time.monotonic() - at
        with self.log.lock:
            self.log.calls.append(_Call(at - self.started, kind, took, status, why))
        return status

    def send(self, write: _Write) -> httpx.Response:
        """One try of a write: the same key every time."""
        if write.kind == "fact":
            return self.http.post(
                f"/v1/users/{self.user}/facts",
                json={"text": write.text},
                headers={"Idempotency-Key": write.key},
            )
        body = {
            "messages": [{"role": "user", "content": write.text}],
            "background": True,
            "idempotency_key": write.key,
        }
        return self.http.post(f"/v1/users/{self.user}/messages", json=body)

    def write(self, kind: str, until: float) -> None:
        self.n += 1
        text = f"{self.user} note {self.n} {uuid.uuid4().hex[:8]}"
        write = _Write(kind, self.user, text, key=f"{self.user}-{self.n}")
        with self.log.lock:
            self.log.writes.append(write)
        while time.monotonic() < until:
            write.tries += 1
            status = self.call(kind, lambda: self.send(write))
            if 200 <= status < 300:
                write.accepted = True
                return
            if 400 <= status < 500 and status not in (408, 429):
                write.refused = status  # the write itself is wrong: a retry cannot help
                return
            time.sleep(0.2 + self.rng.random() * 0.3)  # a client's backoff, then the same key

    def run(self, stop_new: float, give_up: float) -> None:
        while time.monotonic() < stop_new:
            roll = self.rng.random()
            if roll < 0.5:
                self.write("fact", give_up)
            elif roll < 0.75:
                self.write("session", give_up)
            else:
                self.call(
                    "read",
                    lambda: self.http.get(f"/v1/users/{self.user}/facts", params={"limit": 5}),
                )
                time.sleep(0.05)


def _stored(cfg: Config, users: set[str]) -> dict[str, dict[str, int]]:
    """Every stored fact's text of each user (whatever its state), with how many times."""
    out: dict[str, dict[str, int]] = {}
    driver = make_driver(cfg)
    try:
        for user in users:
            records, _, _ = driver.execute_query(
                "MATCH (f:Fact {user_id: $user}) RETURN f.text AS text, count(*) AS n",
                user=stored_user_id(TENANT, user),
                database_=cfg.neo4j_database,
            )
            out[user] = {r["text"]: r["n"] for r in records}
    finally:
        driver.close()
    return out


def _summary(log: _Log, bound: float, outage: tuple[float, float] | None) -> dict[str, Any]:
    """Answer times. The server's bound answers with a 503 ``timeout`` problem at the
    bound itself (its detail says so); "hung" is a request answered more than a second
    after the bound, or not at all before the client's own timeout."""
    calls = log.calls
    hung = [c for c in calls if c.seconds > bound + 1.0 or c.why == "ReadTimeout"]
    at_bound = [c for c in calls if c.status == 503 and c.why.startswith("RequestTimeout")]
    answered = [c for c in calls if c.status]
    by_status: dict[str, int] = {}
    for c in calls:
        by_status[str(c.status or "no answer")] = by_status.get(str(c.status or "no answer"), 0) + 1
    out: dict[str, Any] = {
        "requests": len(calls),
        "by_status": dict(sorted(by_status.items())),
        "max_answer_s": round(max((c.seconds for c in answered), default=0.0), 3),
        "hung_beyond_bound": len(hung),
        "hung_calls": [_row(c) for c in hung],
        "503_timeout_at_bound": len(at_bound),
        "503_timeout_at_bound_by_10s": _by_10s(at_bound),
    }
    if outage is not None:
        down = [c for c in calls if outage[0] <= c.at <= outage[1] and c.kind != "session"]
        fail = sorted(c.seconds for c in down if c.status == 503)
        out["neo4j_outage"] = {
            "window_s": [round(outage[0], 1), round(outage[1], 1)],
            "requests_needing_neo4j": len(down),
            "503": len(fail),
            "503_median_s": round(fail[len(fail) // 2], 3) if fail else None,
            "503_max_s": round(fail[-1], 3) if fail else None,
            "over_2s": sum(1 for c in down if c.seconds > 2.0),
            "over_2s_calls": [_row(c) for c in down if c.seconds > 2.0][:40],
            "sessions_accepted_while_down": sum(
                1
                for c in calls
                if c.kind == "session" and outage[0] <= c.at <= outage[1] and c.status == 202
            ),
        }
    return out


def run(
    config: Config,
    *,
    clients: int = 16,
    seconds: float = 60.0,
    queue_url: str | None = None,
    faults: tuple[str, ...] = ("api", "worker", "neo4j"),
    bolt_port: int | None = None,
    http_port: int | None = None,
    api_port: int | None = None,
) -> dict[str, Any]:
    """Run the load with the faults spaced over it; returns (and prints) the figures."""
    if queue_url:  # its counts are the run's: a queue of its own, empty
        import redis

        if redis.Redis.from_url(queue_url).dbsize():
            raise RuntimeError("--queue-url must name an empty Redis database (…/<n>)")
    home = Path(tempfile.mkdtemp(prefix="hmem-faults-"))
    server = LocalNeo4j(
        home / "neo4j", bolt_port=bolt_port or _port(), http_port=http_port or _port()
    )
    print(f"starting Neo4j in {home}", flush=True)
    server.start(timeout=900)
    secret = "faults-" + uuid.uuid4().hex * 2
    log = _Log()
    results: dict[str, Any] = {"clients": clients, "seconds": seconds, "faults": list(faults)}
    fleet: _Fleet | None = None
    try:
        with FakeOpenAIServer(chat_replies=[_echo] * 50_000) as fake:
            settings = {
                "neo4j_uri": server.bolt_uri,
                "neo4j_password": server.password(),
                "neo4j_home": str(server.home),
                "server_secret": secret,
                "llm_base_url": fake.base_url,
                "llm_api_key": FAKE_API_KEY,
                "embed_provider": "none",
                "api_worker": True,
                "queue_path": str(home / "queue.sqlite3"),
                **({"queue_url": queue_url} if queue_url else {}),
            }
            cfg = Config(**{**config.model_dump(), **settings})
            env = {
                **os.environ,
                **{f"HMEM_{k.upper()}": str(v) for k, v in settings.items()},
                "HMEM_API_WORKER": "true",
                "HMEM_API_LOG_JSON": "true",
            }
            driver = make_driver(cfg)
            try:
                Memory(cfg, driver=driver).init_schema()
                keys = KeyStore(driver)
                keys.ensure_schema()
                key = keys.create(TENANT, name="faults").key
            finally:
                driver.close()
            fleet = _Fleet(env, api_port or _port(), home)
            results["logs"] = str(home)
            fleet.serve()
            fleet.work()
            fleet.up()
            results["load_before"] = os.getloadavg()
            results["lease_s"] = cfg.job_lease_s
            results["request_bound_s"] = cfg.api_request_timeout_s
            outage = _load(fleet, server, log, key, clients, seconds, faults)
            results["load_after"] = os.getloadavg()
            with (home / "calls.jsonl").open("w") as out:  # every request, for a closer look
                for c in log.calls:
                    out.write(json.dumps(_row(c)) + "\n")
            results["events"] = [(round(t, 1), what) for t, what in log.events]
            results.update(_summary(log, cfg.api_request_timeout_s, outage))
            results.update(_check(cfg, fleet, log))
    finally:
        if fleet is not None:
            fleet.stop()
        server.stop()
    return results


def _load(
    fleet: _Fleet,
    server: LocalNeo4j,
    log: _Log,
    key: str,
    clients: int,
    seconds: float,
    faults: tuple[str, ...],
) -> tuple[float, float] | None:
    started = time.monotonic()
    url = f"http://127.0.0.1:{fleet.port}"
    users = [_Client(n, url, key, log, started) for n in range(clients)]
    give_up = started + seconds + 900  # retrying writes: until Neo4j is back, with slack
    threads = [
        threading.Thread(target=c.run, args=(started + seconds, give_up), daemon=True)
        for c in users
    ]
    for thread in threads:
        thread.start()

    def event(what: str) -> None:
        log.events.append((time.monotonic() - started, what))
        print(f"{time.monotonic() - started:6.1f} s  {what}", flush=True)

    # spaced: each fault in its own fifth of the run, the last one early enough for
    # Neo4j's restart to fall inside the load
    times = {"api": 0.15, "worker": 0.35, "neo4j": 0.55}
    outage: tuple[float, float] | None = None
    for name in sorted(faults, key=lambda f: times[f]):
        time.sleep(max(0.0, started + times[name] * seconds - time.monotonic()))
        if name == "api":
            event("kill -9 API")
            _kill(fleet.api)
            fleet.serve()

            def api_back() -> None:
                fleet.up()
                event("API answering again")

            threading.Thread(target=api_back, daemon=True).start()
        elif name == "worker":
            event("kill -9 worker")
            _kill(fleet.worker)
            fleet.work()
            event("worker restarted")
        else:
            pid = server.pid()
            assert pid is not None
            event("kill -9 Neo4j")
            down_at = time.monotonic() - started
            os.kill(pid, signal.SIGKILL)
            server.stop()  # reaps it
            threading.Thread(target=_port_opens, args=(server, event), daemon=True).start()
            server.start(timeout=900)
            event("Neo4j answering again")
            outage = (down_at, time.monotonic() - started)
    for thread in threads:
        thread.join()
    event("every client done")
    for c in users:
        c.http.close()
    return outage


def _row(c: _Call) -> tuple[float, str, float, int, str]:
    return (round(c.at, 1), c.kind, round(c.seconds, 1), c.status, c.why)


def _by_10s(calls: list[_Call]) -> dict[str, int]:
    """How many calls were sent in each ten seconds of the run."""
    out: dict[str, int] = {}
    for c in calls:
        slot = f"{int(c.at // 10) * 10}"
        out[slot] = out.get(slot, 0) + 1
    return out


def _port_opens(server: LocalNeo4j, event: Callable[[str], None]) -> None:
    """Say when the restarting Neo4j's Bolt port first takes a connection (the
    server may still be starting: the window where requests used to hang)."""
    port = int(server.bolt_uri.rsplit(":", 1)[-1])
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                event("Neo4j's Bolt port open")
                return
        except OSError:
            time.sleep(0.2)


def _check(cfg: Config, fleet: _Fleet, log: _Log) -> dict[str, Any]:
    """Accepted = stored, none twice: after the queue drained."""
    with Memory(cfg) as memory:
        deadline = time.monotonic() + 900
        while memory.ingest.queue.pending() and time.monotonic() < deadline:
            time.sleep(0.5)
        counts = memory.ingest.queue.counts()
    stored = _stored(cfg, {w.user for w in log.writes})
    accepted = [w for w in log.writes if w.accepted]

    def copies(w: _Write) -> int:
        text = w.text if w.kind == "fact" else f"Maya said: {w.text}"
        return stored[w.user].get(text, 0)

    never = [w for w in log.writes if not w.accepted]
    return {
        "writes": len(log.writes),
        "accepted": len(accepted),
        "accepted_facts": sum(w.kind == "fact" for w in accepted),
        "accepted_sessions": sum(w.kind == "session" for w in accepted),
        "retried": sum(w.tries > 1 for w in log.writes),
        "stored": sum(copies(w) >= 1 for w in accepted),
        "lost": sum(copies(w) == 0 for w in accepted),
        "duplicated": sum(copies(w) > 1 for w in log.writes),
        "never_accepted": len(never),
        "refused_4xx": sum(1 for w in never if w.refused),
        "never_accepted_but_stored": sum(copies(w) >= 1 for w in never),
        "queue": counts,
    }
