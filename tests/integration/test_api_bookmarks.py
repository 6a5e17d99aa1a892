"""Read-your-writes across two API replicas (each its own driver and bookmark manager)
with ``Hmem-Bookmark``: answers carry it, reads wait for it, the clients send it back."""

from __future__ import annotations

import base64
import itertools
import time
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
    with Client(a.url, api_key=tenant.key, transport=balancer, timeout=_SLOW) as client:
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


# a loaded machine (8 test runs on 2 cores) answers slowly; what is measured is the
# status, and that no answer waits anything like Neo4j's 30 s bookmark timeout
_SLOW = 120.0


def _get(url: str, **kwargs: Any) -> httpx.Response:
    return httpx.get(url, timeout=_SLOW, **kwargs)


def _post(url: str, **kwargs: Any) -> httpx.Response:
    return httpx.post(url, timeout=_SLOW, **kwargs)


def _raw(server: LiveServer) -> list[str]:
    """The raw Neo4j bookmarks a replica's driver-wide manager holds (never sent out)."""
    return sorted(server.app.state.driver.execute_query_bookmark_manager.get_bookmarks())


def test_a_read_waits_for_its_bookmark_then_answers_503(
    replicas: tuple[LiveServer, LiveServer], tenant: Tenant
) -> None:
    a, b = replicas
    user = tenant.user("maya")
    auth = {"Authorization": f"Bearer {tenant.key}"}
    wrote = _post(f"{a.url}/v1/users/{user}/facts", json={"text": "Maya likes tea."}, headers=auth)
    assert wrote.status_code == 201
    mark = wrote.headers["Hmem-Bookmark"]
    assert wrote.json()["bookmarks"][0].startswith("hb1.")
    read = _get(f"{b.url}/v1/users/{user}/facts", headers={**auth, "Hmem-Bookmark": mark})
    assert read.status_code == 200 and len(read.json()["items"]) == 1
    # a genuine token (sealed by this deployment for this tenant) of a commit the
    # database never reaches: the wait is bounded (bookmark_wait_s=1), then 503
    seal = a.app.state.bookmark_seal
    ahead = seal.seal(tenant.name, [_future(_raw(a)[0])])
    started = time.monotonic()
    late = _get(f"{b.url}/v1/users/{user}/facts", headers={**auth, "Hmem-Bookmark": ahead})
    assert late.status_code == 503, late.text
    assert time.monotonic() - started < 25  # bounded by bookmark_wait_s, not 30 s
    assert late.headers["content-type"].startswith("application/problem+json")
    assert late.json()["type"].endswith("bookmark-wait")
    # the caller's bookmark never entered the replica's shared manager
    assert _future(_raw(a)[0]) not in _raw(b)
    for bad_mark in ("no!", "U", "U:", "FB:abc"):
        bad = _get(f"{b.url}/v1/users/{user}/facts", headers={**auth, "Hmem-Bookmark": bad_mark})
        assert bad.status_code == 422, bad.text
    still = _get(f"{b.url}/v1/users/{user}/facts", headers=auth)
    assert still.status_code == 200  # a refused bookmark did not stick


def test_a_forged_bookmark_is_refused_at_once_and_hangs_nothing(
    replicas: tuple[LiveServer, LiveServer], tenant: Tenant, driver: Driver, memory: Memory
) -> None:
    """N1, N3, N12: Neo4j's raw bookmark with its transaction number raised (what a
    probe made of any answer's header) is refused at once, after the key; no one's
    later reads wait for it."""
    a, b = replicas
    user = tenant.user("maya")
    auth = {"Authorization": f"Bearer {tenant.key}"}
    assert _post(
        f"{a.url}/v1/users/{user}/facts", json={"text": "Maya likes tea."}, headers=auth
    ).is_success
    forged = _future(_raw(a)[0])
    for headers, status in (
        ({}, 401),
        ({"Authorization": "Bearer hmem_000000000000_" + "x" * 32}, 401),
        (auth, 422),
    ):
        started = time.monotonic()
        answer = _get(
            f"{b.url}/v1/users/{user}/facts",
            headers={**headers, "Hmem-Bookmark": forged},
        )
        assert answer.status_code == status, answer.text
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert time.monotonic() - started < 10, "refused at once, never after a wait"
        assert "Hmem-Bookmark" not in answer.headers
    # another tenant's sealed token is refused the same way
    with fresh_tenant(driver, memory) as other:
        theirs = other.user("ann")
        other_auth = {"Authorization": f"Bearer {other.key}"}
        wrote = _post(
            f"{a.url}/v1/users/{theirs}/facts", json={"text": "Ann likes tea."}, headers=other_auth
        )
        token = wrote.headers["Hmem-Bookmark"]
        crossed = _get(f"{b.url}/v1/users/{user}/facts", headers={**auth, "Hmem-Bookmark": token})
        assert crossed.status_code == 422, crossed.text
        # and nothing hangs: the other tenant's plain reads answer at once, on both
        for server in (a, b):
            started = time.monotonic()
            plain = _get(f"{server.url}/v1/users/{theirs}/facts", headers=other_auth)
            assert plain.status_code == 200
            assert time.monotonic() - started < 10
    for server in (a, b):
        assert forged not in _raw(server)


def test_bookmarks_are_opaque_and_only_on_authenticated_v1_answers(
    replicas: tuple[LiveServer, LiveServer], tenant: Tenant
) -> None:
    """N12: no answer shows Neo4j's transaction counter; unauthenticated answers carry
    no bookmark at all."""
    a, _ = replicas
    user = tenant.user("maya")
    auth = {"Authorization": f"Bearer {tenant.key}"}
    wrote = _post(f"{a.url}/v1/users/{user}/facts", json={"text": "Maya likes tea."}, headers=auth)
    raw = _raw(a)
    assert raw
    token = wrote.headers["Hmem-Bookmark"]
    assert token.startswith("hb1.") and "FB:" not in token
    assert all(not mark.startswith("FB:") for mark in wrote.json()["bookmarks"])
    assert not any(r in wrote.text or r in token for r in raw)
    # a fresh seal each time: two answers after the same commit do not compare
    again = _get(f"{a.url}/v1/users/{user}/facts", headers=auth)
    assert again.headers["Hmem-Bookmark"] != token
    for path in ("/healthz", "/readyz", "/v1/me", f"/v1/users/{user}/facts"):
        bare = _get(f"{a.url}{path}")
        assert "Hmem-Bookmark" not in bare.headers, path


def test_the_client_keeps_only_its_own_writes_bookmarks(
    replicas: tuple[LiveServer, LiveServer], tenant: Tenant
) -> None:
    """N2: health() and reads never give the client a bookmark; a write does."""
    a, _ = replicas
    user = tenant.user("maya")
    with Client(a.url, api_key=tenant.key, timeout=_SLOW) as client:
        client.health()
        client.facts(user_id=user)
        client.search("tea", user_id=user)
        assert client.bookmark is None
        client.remember("Maya likes tea.", user_id=user)
        mine = client.bookmark
        assert mine
        client.facts(user_id=user)
        client.health()
        assert client.bookmark == mine


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
    with Client(a.url, api_key=tenant.key, timeout=_SLOW) as on_a:
        done = on_a.add("I adopted a cat named Pixel.", user_id=user)
    assert done.bookmarks
    auth = {"Authorization": f"Bearer {tenant.key}"}
    job = _get(f"{b.url}/v1/users/{user}/jobs/{done.job_id}", headers=auth)
    assert job.status_code == 200
    assert job.json()["result"]["bookmarks"]  # sealed, like the header
    assert job.headers["Hmem-Bookmark"].startswith("hb1.")
    read = _get(
        f"{b.url}/v1/users/{user}/facts",
        headers={**auth, "Hmem-Bookmark": job.json()["result"]["bookmarks"][0]},
    )
    assert read.status_code == 200 and len(read.json()["items"]) == 1
