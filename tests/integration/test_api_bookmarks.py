"""Read-your-writes across two API replicas (each its own driver and bookmark manager)
with ``Hmem-Bookmark``: answers carry it, reads wait for it, the clients send it back."""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from neo4j import Driver

from hmem import Client, Config, Memory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server
from tests.integration.test_write_path import model_config


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def replicas(
    config: Config,
    memory: Memory,
    fake: FakeOpenAIServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LiveServer, LiveServer]]:
    queue = tmp_path_factory.mktemp("queue") / "queue.sqlite3"
    settings = model_config(config, fake, queue, bookmark_wait_s=1.0)
    with live_server(settings) as a, live_server(settings) as b:
        yield a, b


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory) as t:
        yield t


class RoundRobin(httpx.BaseTransport):
    """A load balancer in front of the replicas: each request goes to the next one."""

    def __init__(self, *urls: str) -> None:
        self.ports = itertools.cycle([httpx.URL(u).port for u in urls])
        self.inner = httpx.HTTPTransport()
        self.sent: list[tuple[int | None, str | None]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        port = next(self.ports)
        request.url = request.url.copy_with(port=port)
        self.sent.append((port, request.headers.get("Hmem-Bookmark")))
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def _future(bookmark: str) -> str:
    """The same database's bookmark, for a transaction far ahead of its last one
    (packstream: a list of [16-byte database id, transaction id, []])."""
    raw = base64.b64decode(bookmark[3:] + "=" * (-len(bookmark[3:]) % 4))
    ahead = raw[:19] + b"\xcb" + (2**62).to_bytes(8, "big") + raw[-1:]
    return "FB:" + base64.b64encode(ahead).decode().rstrip("=")


def test_a_client_behind_a_balancer_reads_its_own_writes(
    replicas: tuple[LiveServer, LiveServer], tenant: Tenant
) -> None:
    a, b = replicas
    user = tenant.user("maya")
    balancer = RoundRobin(a.url, b.url)
    with Client(a.url, api_key=tenant.key, transport=balancer) as client:
        assert client.bookmark is None
        for n in range(10):
            written = client.remember(f"Maya visited city number {n}.", user_id=user)
            assert written.bookmarks  # the field
            assert client.bookmark  # and the header, kept for the next request
            facts = client.facts(user_id=user)  # through the other replica
            assert written.added[0] in {f.id for f in facts}
    ports = {p for p, _ in balancer.sent}
    assert len(ports) == 2
    assert all(mark for _, mark in balancer.sent[1:])  # every request after the first


def test_a_read_waits_for_its_bookmark_then_answers_503(
    replicas: tuple[LiveServer, LiveServer], tenant: Tenant
) -> None:
    a, b = replicas
    user = tenant.user("maya")
    auth = {"Authorization": f"Bearer {tenant.key}"}
    wrote = httpx.post(
        f"{a.url}/v1/users/{user}/facts", json={"text": "Maya likes tea."}, headers=auth
    )
    assert wrote.status_code == 201
    mark = wrote.headers["Hmem-Bookmark"]
    assert set(mark.split(",")) >= set(wrote.json()["bookmarks"])
    read = httpx.get(f"{b.url}/v1/users/{user}/facts", headers={**auth, "Hmem-Bookmark": mark})
    assert read.status_code == 200 and len(read.json()["items"]) == 1
    late = httpx.get(
        f"{b.url}/v1/users/{user}/facts",
        headers={**auth, "Hmem-Bookmark": _future(wrote.json()["bookmarks"][0])},
        timeout=60,
    )
    assert late.status_code == 503, late.text
    assert late.headers["content-type"].startswith("application/problem+json")
    assert late.json()["type"].endswith("bookmark-wait")
    for bad_mark in ("no!", "U", "U:"):
        bad = httpx.get(
            f"{b.url}/v1/users/{user}/facts", headers={**auth, "Hmem-Bookmark": bad_mark}
        )
        assert bad.status_code == 422, bad.text
    unknown = httpx.get(
        f"{b.url}/v1/users/{user}/facts", headers={**auth, "Hmem-Bookmark": "FB:abc"}
    )
    assert unknown.status_code == 422, unknown.text
    still = httpx.get(f"{b.url}/v1/users/{user}/facts", headers=auth)
    assert still.status_code == 200  # a refused bookmark did not stick


def _one_fact(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "facts": [
            {
                "text": "Maya adopted a cat named Pixel.",
                "category": "episodic",
                "importance": 3,
                "event_date": None,
                "entities": [],
                "relations": [],
            }
        ]
    }


def test_a_background_sessions_bookmark_is_in_its_job_status(
    replicas: tuple[LiveServer, LiveServer], tenant: Tenant, fake: FakeOpenAIServer
) -> None:
    a, b = replicas
    user = tenant.user("maya")
    fake.queue_chat(_one_fact)
    with Client(a.url, api_key=tenant.key) as on_a:
        done = on_a.add("I adopted a cat named Pixel.", user_id=user)
    assert done.bookmarks
    auth = {"Authorization": f"Bearer {tenant.key}"}
    job = httpx.get(f"{b.url}/v1/users/{user}/jobs/{done.job_id}", headers=auth)
    assert job.status_code == 200
    assert job.json()["result"]["bookmarks"] == done.bookmarks
    assert set(job.headers["Hmem-Bookmark"].split(",")) >= set(done.bookmarks)
