"""``hmem bench reliability``: issue 12's hardening checks, rerun with counts.

It starts its own Neo4j (free ports, a temporary home: it kills that one, never yours),
the API in a thread and a fake model server, then runs:

- erasure during a running, a queued and an in-flight (synchronous) session: residue
  after settling (nodes of the user, queue rows, log lines holding the session's text);
- kill -9 of Neo4j during writes (acknowledged writes lost / duplicated), and while it
  is down: liveness latency, time to a 503, a background session still accepted;
- kill -9 of the worker process mid-batch (sessions lost / done twice);
- 64 concurrent clients (errors, acknowledged writes missing);
- the bad-input corpus (``hmem_bench.bad_inputs``, when present): answers 5xx.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from hmem.api import create_app
from hmem.api.auth import stored_user_id
from hmem.config import Config
from hmem.graph.apikeys import KeyStore
from hmem.ingest.queue import JobQueue
from hmem.localdb import LocalNeo4j
from hmem.memory import Memory, make_driver
from hmem.testing.openai_server import FAKE_API_KEY, FakeOpenAIServer

__all__ = ["run"]

TENANT = "bench-rel"
WAIT_S = 120.0


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _fact(text: str) -> dict[str, Any]:
    facts = [
        {
            "text": text,
            "category": "semantic",
            "importance": 5,
            "event_date": None,
            "entities": [],
            "relations": [],
        }
    ]
    return {"facts": facts}


def _echo(body: dict[str, Any]) -> dict[str, Any]:
    words = body["messages"][-1]["content"].split("USER'S MESSAGES:\n", 1)[1].strip()
    return _fact(f"Maya said: {words}")


class _Gate:
    """A model reply that waits until released (so an erasure lands mid-session)."""

    def __init__(self) -> None:
        self.asked, self.release = threading.Event(), threading.Event()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.asked.set()
        self.release.wait(WAIT_S)
        return _echo(body)


class _Lines(logging.Handler):
    """Every log record, formatted with its extras, kept for counting."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.getMessage()} {json.dumps(record.__dict__, default=str)}")


@contextmanager
def _api(config: Config) -> Iterator[str]:
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), host="127.0.0.1", port=0, log_config=None)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the API did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)


def _wait(condition: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.95) - 1)] if values else 0.0


class _Bench:
    def __init__(self, config: Config, url: str, key: str, fake: FakeOpenAIServer) -> None:
        self.config, self.url, self.key, self.fake = config, url, key, fake
        self.http = self.client()
        self.memory = Memory(config)
        self.log = _Lines()

    def client(self) -> httpx.Client:
        """A client of its own per thread."""
        auth = {"Authorization": f"Bearer {self.key}"}
        return httpx.Client(base_url=self.url, headers=auth, timeout=WAIT_S)

    def residue(self, user: str, text: str) -> dict[str, int]:
        stored = stored_user_id(TENANT, user)
        nodes = self.memory.store.counts(stored)["any_nodes"]
        queue = self.memory.ingest.queue
        assert isinstance(queue, JobQueue)  # this benchmark runs the SQLite queue
        with queue._db() as db:
            [row] = db.execute("SELECT count(*) AS n FROM jobs WHERE user_id = ?", (stored,))
        lines = sum(text in line for line in self.log.lines)
        return {"nodes": nodes, "queue_rows": int(row["n"]), "log_lines_with_text": lines}

    def session(
        self, user: str, text: str, background: bool, http: httpx.Client | None = None
    ) -> httpx.Response:
        body = {"messages": [{"role": "user", "content": text}], "background": background}
        return (http or self.http).post(f"/v1/users/{user}/messages", json=body)

    def erase_races(self, tries: int) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for kind in ("running", "queued", "in_flight"):
            total = {"tries": tries, "nodes": 0, "queue_rows": 0, "log_lines_with_text": 0}
            for _ in range(tries):
                user, text = f"erase-{uuid.uuid4().hex[:8]}", f"I live in {uuid.uuid4().hex}."
                gate = _Gate()
                self.fake.queue_chat(gate)  # the only model call: erasure drops the rest
                answer: list[httpx.Response] = []
                if kind == "in_flight":

                    def post(
                        user: str = user, text: str = text, out: list[httpx.Response] = answer
                    ) -> None:
                        with self.client() as http:
                            out.append(self.session(user, text, False, http))

                    poster = threading.Thread(target=post)
                    poster.start()
                else:
                    first = text if kind == "running" else "I have a cat."
                    self.session(user, first, True)
                    if kind == "queued":  # behind the running one of the same user
                        self.session(user, text, True)
                gate.asked.wait(WAIT_S)
                self.http.delete(f"/v1/users/{user}").raise_for_status()
                gate.release.set()
                if kind == "in_flight":
                    poster.join(WAIT_S)
                    total.setdefault("sync_answer_409", 0)
                    total["sync_answer_409"] += int(answer[0].status_code == 409)
                # settle: the refused write follows the model's answer within milliseconds
                time.sleep(3.0)
                for key, value in self.residue(user, text).items():
                    total[key] += value
            out[kind] = total
        return out

    def concurrent_clients(self, clients: int, writes: int) -> dict[str, Any]:
        acked: list[tuple[str, str]] = []
        errors = 0
        kinds: dict[str, int] = {}
        seconds: list[list[float]] = [[] for _ in range(writes)]  # by each client's write
        lock = threading.Lock()

        def client(n: int) -> None:
            nonlocal errors
            user = f"load-{n}-{uuid.uuid4().hex[:6]}"
            with self.client() as http:
                for i in range(writes):
                    failure = "no answer"
                    started = time.perf_counter()
                    try:
                        r: httpx.Response | None = http.post(
                            f"/v1/users/{user}/facts", json={"text": f"Maya wrote note {n}-{i}."}
                        )
                    except httpx.HTTPError as exc:
                        r, failure = None, f"no answer ({type(exc).__name__}, write {i + 1})"
                    with lock:
                        seconds[i].append(time.perf_counter() - started)
                        if r is not None and r.status_code == 201:
                            acked.append((user, r.json()["added"][0]))
                        else:
                            errors += 1
                            kind = str(r.status_code) if r is not None else failure
                            if r is not None and r.status_code >= 400:
                                kind += f" {r.json().get('error')}"
                            kinds[kind] = kinds.get(kind, 0) + 1

        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(client, range(clients)))
        missing = sum(
            self.http.get(f"/v1/users/{u}/facts/{f}").status_code != 200 for u, f in acked
        )
        return {
            "clients": clients,
            "acknowledged": len(acked),
            "errors": errors,
            "missing": missing,
            "error_kinds": kinds,
            # the client's timeout is WAIT_S: a write slower than that is "no answer"
            "slowest_s_by_write": [round(max(t), 1) for t in seconds],
        }

    def bad_inputs(self) -> dict[str, Any] | str:
        try:
            corpus = importlib.import_module("hmem_bench.bad_inputs")
        except ImportError:
            return "no corpus (hmem_bench.bad_inputs) in this version"
        items = corpus.load_corpus()
        # A model that answers (as the test does): a session the corpus sends that is
        # valid must get its 200/202, not the fake server's "no scripted reply" 500.
        self.fake.queue_chat(*[{"facts": []}] * len(items))
        user = f"bad-{uuid.uuid4().hex[:8]}"
        fact = self.http.post(f"/v1/users/{user}/facts", json={"text": "Maya likes tea."})
        outcomes = corpus.send_all(self.http, user, fact.json()["added"][0], items)
        _wait(lambda: self.memory.ingest.queue.pending() == 0, "the corpus's sessions")
        self.fake.clear_chat()  # the later steps script their own replies, in order
        failed = [f"{o.name}: {o.status}" for o in outcomes if o.status >= 500]
        return {"requests": len(outcomes), "5xx": len(failed), "5xx_items": failed}

    def kill_neo4j(self, server: LocalNeo4j) -> dict[str, Any]:
        acked: list[tuple[str, str, str]] = []
        stop = threading.Event()

        def writer(n: int) -> None:
            user = f"kill-{n}-{uuid.uuid4().hex[:6]}"
            i = 0
            with self.client() as http:
                while not stop.is_set():
                    text = f"Maya counted {n}-{i} before the crash."
                    i += 1
                    try:
                        r = http.post(f"/v1/users/{user}/facts", json={"text": text})
                    except httpx.HTTPError:
                        continue
                    if r.status_code == 201:
                        acked.append((user, r.json()["added"][0], text))

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        _wait(lambda: len(acked) >= 40, "40 acknowledged writes")
        pid = server.pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        server.stop()  # reaps it
        time.sleep(2.0)  # the writers meet the outage
        stop.set()
        for thread in threads:
            thread.join(WAIT_S)

        live, fail, ready = [], [], []
        not_503 = 0
        for _ in range(100):
            started = time.perf_counter()
            self.http.get("/healthz").raise_for_status()
            live.append(time.perf_counter() - started)
        for _ in range(20):
            started = time.perf_counter()
            status = self.http.get(f"/v1/users/{acked[0][0]}/facts").status_code
            fail.append(time.perf_counter() - started)
            not_503 += status != 503
            started = time.perf_counter()
            self.http.get("/readyz")
            ready.append(time.perf_counter() - started)
        background = self.session(f"down-{uuid.uuid4().hex[:6]}", "I live in Oslo.", True)

        down_started = time.monotonic()
        server.start(timeout=900)
        _wait(lambda: self.http.get("/readyz").status_code == 200, "readiness", 900)
        recovered_s = time.monotonic() - down_started
        texts: dict[str, int] = {}
        lost = 0
        for user in {u for u, _, _ in acked}:
            page = self.http.get(f"/v1/users/{user}/facts", params={"limit": 1000}).json()
            for item in page["items"]:
                texts[item["text"]] = texts.get(item["text"], 0) + 1
        lost = sum(1 for _, _, text in acked if texts.get(text, 0) == 0)
        return {
            "acknowledged": len(acked),
            "lost": lost,
            "duplicated": sum(1 for n in texts.values() if n > 1),
            "liveness_p95_ms": round(_p95(live) * 1000, 1),
            "liveness_max_ms": round(max(live) * 1000, 1),
            "503_max_s": round(max(fail), 3),
            "answers_not_503": not_503,
            "503_median_s": round(statistics.median(fail), 3),
            "readyz_max_s": round(max(ready), 3),
            "background_add_while_down": background.status_code,
            "restart_to_ready_s": round(recovered_s, 1),
        }

    def kill_worker(self, sessions: int = 8) -> dict[str, int]:
        queue = Path(tempfile.mkdtemp(prefix="hmem-rel-")) / "queue.sqlite3"
        cfg = Config(**{**self.config.model_dump(), "queue_path": queue})
        env = {
            **os.environ,
            **{f"HMEM_{k.upper()}": str(v) for k, v in _model_settings(self.fake).items()},
            "HMEM_NEO4J_URI": cfg.neo4j_uri,
            "HMEM_NEO4J_PASSWORD": _secret(cfg),
            "HMEM_NEO4J_HOME": str(cfg.neo4j_home),
            "HMEM_QUEUE_PATH": str(queue),
            "HMEM_JOB_LEASE_S": "2",
        }
        user = stored_user_id(TENANT, f"worker-{uuid.uuid4().hex[:8]}")
        gate = _Gate()
        self.fake.queue_chat(_echo, _echo, _echo, gate, *([_echo] * sessions))
        with Memory(cfg) as memory:
            for n in range(sessions):
                memory.add(f"session {n}", user_id=user, background=True)
            cmd = [sys.executable, "-m", "hmem.cli", "worker", "--until-empty"]
            worker = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
            gate.asked.wait(WAIT_S)
            worker.send_signal(signal.SIGKILL)
            worker.wait(WAIT_S)
            gate.release.set()
            done_at_kill = memory.ingest.queue.counts().get("done", 0)
            time.sleep(2.2)  # the dead worker's lease runs out
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, timeout=900, check=True)
            texts = [f.text for f in memory.facts(user_id=user, include_closed=True)]
            memory.erase_user(user)
        counts = [texts.count(f"Maya said: session {n}") for n in range(sessions)]
        return {
            "sessions": sessions,
            "done_when_killed": done_at_kill,
            "lost": counts.count(0),
            "duplicated": sum(1 for c in counts if c > 1),
        }


def _secret(config: Config) -> str:
    assert config.neo4j_password is not None
    return config.neo4j_password.get_secret_value()


def _model_settings(fake: FakeOpenAIServer) -> dict[str, Any]:
    return {
        "llm_base_url": fake.base_url,
        "llm_api_key": FAKE_API_KEY,
        "llm_max_retries": 1,
        "embed_provider": "none",
    }


def run(config: Config, *, tries: int = 5, clients: int = 64, writes: int = 4) -> dict[str, Any]:
    """Run every check; returns (and prints) the figures."""
    home = Path(tempfile.mkdtemp(prefix="hmem-reliability-"))
    server = LocalNeo4j(home / "neo4j", bolt_port=_port(), http_port=_port(), plugin=False)
    server.start(timeout=900)
    results: dict[str, Any] = {}
    try:
        with FakeOpenAIServer() as fake:
            cfg = Config(
                **{
                    **config.model_dump(),
                    **_model_settings(fake),
                    "neo4j_uri": server.bolt_uri,
                    "neo4j_password": server.password(),
                    "neo4j_home": server.home,
                    "queue_path": home / "queue.sqlite3",
                    "api_worker": True,
                    "api_key_cache_s": 1.0,  # the outage outlasts the key cache
                }
            )
            driver = make_driver(cfg)
            try:
                Memory(cfg, driver=driver).init_schema()
                keys = KeyStore(driver)
                keys.ensure_schema()
                key = keys.create(TENANT, name="reliability").key
            finally:
                driver.close()
            with _api(cfg) as url:
                bench = _Bench(cfg, url, key, fake)
                logging.getLogger().addHandler(bench.log)
                try:
                    steps: list[tuple[str, Callable[[], Any]]] = [
                        ("erase_during_sessions", lambda: bench.erase_races(tries)),
                        ("concurrent_clients", lambda: bench.concurrent_clients(clients, writes)),
                        ("bad_inputs", bench.bad_inputs),
                        ("kill_worker", bench.kill_worker),
                        ("kill_neo4j", lambda: bench.kill_neo4j(server)),
                    ]
                    for name, step in steps:
                        started = time.monotonic()
                        results[name] = step()
                        print(f"{name} ({time.monotonic() - started:.0f} s): {results[name]}")
                finally:
                    logging.getLogger().removeHandler(bench.log)
                    bench.memory.shutdown()
                    bench.http.close()
    finally:
        server.stop()
    return results
