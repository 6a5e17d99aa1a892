"""Erasure wins every race: a session of the user in flight when the user is erased
(its model call running in a worker, waiting in the queue, or a synchronous HTTP
``/messages``) leaves nothing behind. Each race is forced, not hoped for: the fake
model blocks until the erasure has returned."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.errors import UserErasedError
from hmem.graph._base import user_ref
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.test_api_fixtures import fresh_tenant, live_server
from tests.integration.test_write_path import fact, model_config

WAIT_S = 60.0


class Gate:
    """A model reply that says when the model was asked, then waits to be released."""

    def __init__(self, text: str) -> None:
        self.asked = threading.Event()
        self.release = threading.Event()
        self.text = text

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.asked.set()
        assert self.release.wait(WAIT_S), "the test never released the model"
        return {"facts": [fact(self.text)]}


@pytest.fixture
def mem(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> Iterator[Memory]:
    cfg = model_config(config, fake_openai, tmp_path / "queue.sqlite3", embed_provider="none")
    memory = Memory(cfg, driver=driver)
    yield memory
    memory.shutdown()


def _residue(memory: Memory, driver: Driver, user_id: str) -> dict[str, int]:
    """Every node of the user, every queue row of the user."""
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE n.user_id = $uid RETURN count(n) AS n", uid=user_id
    )
    with memory.ingest.queue._db() as db:
        [row] = db.execute("SELECT count(*) AS n FROM jobs WHERE user_id = ?", (user_id,))
    return {"nodes": int(records[0]["n"]), "queue_rows": int(row["n"])}


def _in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(target())
        except BaseException as exc:  # handed to the test thread
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_erase_while_a_background_session_runs(
    mem: Memory, driver: Driver, fake_openai: FakeOpenAIServer, user_id: str
) -> None:
    gate = Gate("Maya lives in Oslo.")
    fake_openai.queue_chat(gate)
    queued = mem.add("I live in Oslo.", user_id=user_id, background=True)
    worker, _ = _in_thread(mem.run_jobs)
    assert gate.asked.wait(WAIT_S)

    erased = mem.erase_user(user_id)  # the model call is still in flight
    assert erased["jobs"] == 1
    gate.release.set()
    worker.join(WAIT_S)
    assert not worker.is_alive()

    assert _residue(mem, driver, user_id) == {"nodes": 0, "queue_rows": 0}
    with pytest.raises(Exception, match="no job"):
        mem.job(queued.job_id, user_id=user_id)


def test_a_write_accepted_before_an_erasure_never_lands(
    mem: Memory, driver: Driver, user_id: str
) -> None:
    """The guard itself: whatever the timing of the calls, a write accepted before the
    erasure is refused inside its own transaction (a queued session that the worker
    claims after the erasure takes this path)."""
    accepted = datetime.now(UTC) - timedelta(seconds=1)
    mem.remember("Maya lives in Oslo.", user_id=user_id)
    mem.erase_user(user_id)
    with pytest.raises(UserErasedError):
        mem.store.write(user_id, [], accepted_at=accepted)
    with pytest.raises(UserErasedError):
        mem.store.set_profile(user_id, "Maya lives in Oslo.", accepted_at=accepted)
    assert _residue(mem, driver, user_id) == {"nodes": 0, "queue_rows": 0}
    # a write accepted after the erasure starts the user afresh
    mem.remember("Maya lives in Bergen.", user_id=user_id)
    assert [f.text for f in mem.facts(user_id=user_id)] == ["Maya lives in Bergen."]
    records, _, _ = driver.execute_query(
        "MATCH (e:Erasure {user_ref: $ref}) RETURN e.state AS state",
        ref=user_ref(mem.store._secret, user_id),
    )
    assert [r["state"] for r in records] == ["done"]


def test_erase_of_a_queued_session_drops_it(
    mem: Memory, driver: Driver, fake_openai: FakeOpenAIServer, user_id: str
) -> None:
    mem.add("I live in Oslo.", user_id=user_id, background=True)
    assert mem.erase_user(user_id)["jobs"] == 1
    assert mem.run_jobs() == 0
    assert fake_openai.chat_calls == 0
    assert _residue(mem, driver, user_id) == {"nodes": 0, "queue_rows": 0}


def test_erase_while_a_synchronous_http_session_is_in_flight(
    config: Config,
    driver: Driver,
    memory: Memory,
    fake_openai: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    settings = model_config(
        config, fake_openai, tmp_path / "queue.sqlite3", embed_provider="none", api_worker=False
    )
    gate = Gate("Maya lives in Oslo.")
    fake_openai.queue_chat(gate)
    with (
        fresh_tenant(driver, memory) as tenant,
        live_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=WAIT_S) as http,
    ):
        maya = tenant.user("maya")
        auth = {"Authorization": f"Bearer {tenant.key}"}
        poster, answer = _in_thread(
            lambda: http.post(
                f"/v1/users/{maya}/messages",
                headers=auth,
                json={"messages": [{"role": "user", "content": "I live in Oslo."}]},
            )
        )
        assert gate.asked.wait(WAIT_S)
        erased = http.delete(f"/v1/users/{maya}", headers=auth)
        assert erased.status_code == 200, erased.text
        gate.release.set()
        poster.join(WAIT_S)
        [response] = answer
        assert isinstance(response, httpx.Response)
        assert response.status_code == 409, response.text
        assert response.json()["type"] == "urn:hmem:problem:user-erased"
        assert http.get(f"/v1/users/{maya}/facts", headers=auth).json()["items"] == []
        stored = tenant.stored(maya)
        queue = Memory(settings, driver=driver)
        try:
            assert _residue(queue, driver, stored) == {"nodes": 0, "queue_rows": 0}
        finally:
            queue.shutdown()
