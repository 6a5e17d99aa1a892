"""The retry contract of direct writes (issue 45, N9): every /v1 request is answered
within ``api_request_timeout_s`` (a 503 ``timeout`` problem past it), and a direct write
sent with ``Idempotency-Key`` is safe to retry: the retry finds the first write's facts
and answers with their ids, never writing them twice."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server

_SLOW = 120.0  # a loaded test machine; what is checked is the status and the ids


@pytest.fixture(scope="module")
def servers(config: Config) -> Iterator[tuple[LiveServer, LiveServer]]:
    """One replica with the normal bound, one whose bound no request can meet."""
    hurried = Config(**{**config.model_dump(), "api_request_timeout_s": 0.001})
    with live_server(config) as normal, live_server(hurried) as hasty:
        yield normal, hasty


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory) as t:
        yield t


def test_a_keyed_direct_write_is_written_once(
    servers: tuple[LiveServer, LiveServer], tenant: Tenant, memory: Memory
) -> None:
    normal, _ = servers
    user = tenant.user("maya")
    url = f"{normal.url}/v1/users/{user}/facts"
    auth = {"Authorization": f"Bearer {tenant.key}", "Idempotency-Key": "write-1"}
    first = httpx.post(url, json={"text": "Maya likes tea."}, headers=auth, timeout=_SLOW)
    assert first.status_code == 201, first.text
    again = httpx.post(url, json={"text": "Maya likes tea."}, headers=auth, timeout=_SLOW)
    assert again.status_code == 201 and again.headers.get("Idempotent-Replay") == "true"
    assert again.json()["added"] == first.json()["added"]
    other = httpx.post(url, json={"text": "Maya likes coffee."}, headers=auth, timeout=_SLOW)
    assert other.status_code == 409, other.text
    batch = f"{normal.url}/v1/users/{user}/facts/batch"
    body = {"facts": [{"text": f"Maya visited city {n}."} for n in range(5)]}
    keyed = {**auth, "Idempotency-Key": "batch-1"}
    made = httpx.post(batch, json=body, headers=keyed, timeout=_SLOW)
    assert made.status_code == 201 and len(made.json()["added"]) == 5
    redo = httpx.post(batch, json=body, headers=keyed, timeout=_SLOW)
    assert redo.headers.get("Idempotent-Replay") == "true"
    assert redo.json()["added"] == made.json()["added"]
    assert len(memory.facts(user_id=tenant.stored(user))) == 6


def test_a_request_past_the_bound_is_a_503_and_its_retry_is_safe(
    servers: tuple[LiveServer, LiveServer], tenant: Tenant, memory: Memory
) -> None:
    normal, hasty = servers
    user = tenant.user("maya")
    auth = {"Authorization": f"Bearer {tenant.key}", "Idempotency-Key": "late-1"}
    started = time.monotonic()
    late = httpx.post(
        f"{hasty.url}/v1/users/{user}/facts",
        json={"text": "Maya moved to Lisbon."},
        headers=auth,
        timeout=_SLOW,
    )
    assert late.status_code == 503, late.text
    assert late.json()["type"].endswith("timeout") and late.headers["Retry-After"]
    assert "Idempotency-Key" in late.json()["detail"]
    assert time.monotonic() - started < 10
    # the client was told nothing about the write; it retries (through another replica)
    # until the write is there, and it is there exactly once
    deadline = time.monotonic() + 60
    while True:
        retry = httpx.post(
            f"{normal.url}/v1/users/{user}/facts",
            json={"text": "Maya moved to Lisbon."},
            headers=auth,
            timeout=_SLOW,
        )
        if retry.status_code == 503:
            # the first write is still running (the replicas here share one process, so
            # one in-flight guard): the contract says retry with the same key
            assert retry.json()["error"] == "WriteInFlight", retry.text
            assert retry.headers["Retry-After"], retry.headers
            assert time.monotonic() < deadline, "the first write never finished"
        else:
            assert retry.status_code == 201, retry.text
            if retry.headers.get("Idempotent-Replay") == "true" or time.monotonic() > deadline:
                break
        time.sleep(0.5)
    texts = [f.text for f in memory.facts(user_id=tenant.stored(user))]
    assert texts == ["Maya moved to Lisbon."]
