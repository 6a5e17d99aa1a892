"""Security by default: keys, tenants, user lists, forged ids, size limits, no leaks."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.graph.apikeys import KeyStore
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server


@pytest.fixture(scope="module")
def server(
    config: Config, memory: Memory, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    config = config.model_copy(
        update={"queue_path": tmp_path_factory.mktemp("queue") / "queue.sqlite3"}
    )
    small = config.model_copy(update={"api_max_body_bytes": 4096, "api_key_cache_s": 0.0})
    with live_server(small) as running:
        yield running


@pytest.fixture
def acme(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "acme") as t:
        yield t


@pytest.fixture
def globex(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "globex") as t:
        yield t


def _call(
    server: LiveServer, method: str, path: str, key: str | None, **kw: object
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.request(method, server.url + path, headers=headers, timeout=120, **kw)  # type: ignore[arg-type]


def _seed(server: LiveServer, tenant: Tenant, user: str) -> str:
    r = _call(
        server, "POST", f"/v1/users/{user}/facts", tenant.key, json={"text": "Bob likes jazz."}
    )
    assert r.status_code == 201, r.text
    return str(r.json()["added"][0])


ROUTES = [
    ("GET", "/v1/users/{u}/facts", None),
    ("POST", "/v1/users/{u}/facts", {"text": "Mallory wrote this."}),
    ("GET", "/v1/users/{u}/facts/{f}", None),
    ("GET", "/v1/users/{u}/facts/{f}/history", None),
    ("POST", "/v1/users/{u}/facts/{f}/close", {}),
    ("POST", "/v1/users/{u}/facts/{f}/restore", None),
    ("DELETE", "/v1/users/{u}/facts/{f}", None),
    ("GET", "/v1/users/{u}/export", None),
    ("GET", "/v1/users/{u}/audit", None),
    ("DELETE", "/v1/users/{u}", None),
]


def test_missing_malformed_unknown_and_revoked_keys_get_401(
    server: LiveServer, acme: Tenant
) -> None:
    bob = acme.user("bob")
    fact = _seed(server, acme, bob)
    revoked = acme.keys.create(acme.name, name="to revoke")
    acme.keys.revoke(revoked.info.key_id)
    forged = acme.key[:-4] + ("AAAA" if not acme.key.endswith("AAAA") else "BBBB")
    bad_keys = [None, "", "not-a-key", "hmem_zzzzzzzzzzzz_" + "x" * 43, forged, revoked.key]
    for method, template, body in ROUTES:
        path = template.format(u=bob, f=fact)
        for key in bad_keys:
            r = (
                _call(server, method, path, key, json=body)
                if body is not None
                else _call(server, method, path, key)
            )
            assert r.status_code == 401, (method, path, key, r.text)
            assert r.headers["content-type"] == "application/problem+json"
            assert r.headers["www-authenticate"].startswith("Bearer")
    # X-API-Key works as well as Bearer; nothing above wrote or erased anything
    r = httpx.get(
        f"{server.url}/v1/users/{bob}/facts", headers={"X-API-Key": acme.key}, timeout=120
    )
    assert [f["id"] for f in r.json()["items"]] == [fact]


def test_another_tenant_cannot_reach_users_or_facts(
    server: LiveServer, acme: Tenant, globex: Tenant, memory: Memory
) -> None:
    bob = acme.user("bob")
    fact = _seed(server, acme, bob)
    # Globex names the same user id: it is Globex's own (empty) user, never Acme's.
    globex.users.add(bob)
    r = _call(server, "GET", f"/v1/users/{bob}/facts", globex.key)
    assert r.status_code == 200 and r.json()["items"] == []
    for method, template, body in ROUTES:
        if "{f}" not in template:
            continue
        path = template.format(u=bob, f=fact)  # a forged id: Acme's fact under Globex's key
        r = (
            _call(server, method, path, globex.key, json=body)
            if body is not None
            else _call(server, method, path, globex.key)
        )
        assert r.status_code == 404, (method, path, r.text)
        assert r.json()["error"] == "NotFoundError"
    # superseding or relating to another tenant's fact is "not found", and writes nothing
    for field in ("supersedes", "relates"):
        r = _call(
            server, "POST", f"/v1/users/{bob}/facts", globex.key,
            json={"text": "Bob moved to Rome.", field: [fact]},
        )  # fmt: skip
        assert r.status_code == 404
    # spelling Acme's stored id ("acme-…:bob") is not even a valid user id
    r = _call(server, "GET", f"/v1/users/{acme.name}:{bob}/facts", globex.key)
    assert r.status_code == 422
    r = _call(server, "GET", f"/v1/users/{acme.name}%3A{bob}/facts", globex.key)
    assert r.status_code == 422
    # Globex erasing "bob" erases its own nothing; Acme's Bob is intact
    assert _call(server, "DELETE", f"/v1/users/{bob}", globex.key).status_code == 200
    assert memory.get(fact, user_id=acme.stored(bob)).text == "Bob likes jazz."
    assert memory.store.counts(globex.stored(bob))["facts"] == 0


def test_a_key_limited_to_users_reaches_only_them(server: LiveServer, acme: Tenant) -> None:
    bob, eve = acme.user("bob"), acme.user("eve")
    fact = _seed(server, acme, eve)
    bobs_key = acme.key_for(bob)
    assert _call(server, "GET", f"/v1/users/{bob}/facts", bobs_key).status_code == 200
    for method, template, body in ROUTES:
        path = template.format(u=eve, f=fact)
        r = (
            _call(server, method, path, bobs_key, json=body)
            if body is not None
            else _call(server, method, path, bobs_key)
        )
        assert r.status_code == 403, (method, path, r.text)
        assert r.json()["type"] == "urn:hmem:problem:forbidden"
    me = _call(server, "GET", "/v1/me", bobs_key).json()
    assert me == {"tenant": acme.name, "key_id": me["key_id"], "user_ids": [bob]}


def test_keys_are_stored_only_as_salted_hashes(driver: Driver, acme: Tenant) -> None:
    issued = acme.keys.create(acme.name, name="inspect")
    records, _, _ = driver.execute_query(
        "MATCH (k:ApiKey {key_id: $id}) RETURN properties(k) AS p", id=issued.info.key_id
    )
    stored = records[0]["p"]
    secret = issued.key.split("_", 2)[2]
    assert secret not in str(stored) and issued.key not in str(stored)
    assert len(stored["digest"]) == 64 and len(stored["salt"]) == 32
    assert KeyStore(driver).verify(issued.key) is not None


def test_bad_input_is_a_clear_problem_and_writes_nothing(
    server: LiveServer, acme: Tenant, memory: Memory
) -> None:
    bob = acme.user("bob")
    base = f"/v1/users/{bob}/facts"
    cases = [
        {"text": "Bob moved.", "observed_at": "2026-01-01T00:00:00"},  # naive
        {
            "text": "Bob moved.",
            "valid_from": "2026-02-01T00:00:00Z",
            "valid_to": "2026-01-01T00:00:00Z",
        },
        {"text": ""},
        {"text": "Bob moved.", "importance": 11},
        {"text": "Bob moved.", "unknown": 1},
        {"text": "Bob moved.", "embedding": [0.1, 0.2]},  # wrong dimension
        {"text": "x" * 3000},  # over max_fact_chars
    ]
    for body in cases:
        r = _call(server, "POST", base, acme.key, json=body)
        assert r.status_code == 422, (body, r.text)
        assert r.headers["content-type"] == "application/problem+json"
        assert "x" * 50 not in r.text  # the input is never echoed
    refused = _call(
        server, "POST", base, acme.key, json={"text": "My password is hunter2-Blue-77!"}
    )
    assert refused.status_code == 422 and refused.json()["error"] == "PolicyRefusal"
    assert refused.json()["kind"] == "credential" and "hunter2" not in refused.text
    assert _call(server, "GET", f"{base}?as_of=2026-01-01", acme.key).status_code == 422
    assert _call(server, "GET", f"{base}?limit=0", acme.key).status_code == 422
    assert _call(server, "GET", f"{base}/nope", acme.key).status_code == 404
    assert memory.store.counts(acme.stored(bob))["facts"] == 0


def test_request_size_limit(server: LiveServer, acme: Tenant) -> None:
    bob = acme.user("bob")
    big = {"text": "Bob " * 5000}
    r = _call(server, "POST", f"/v1/users/{bob}/facts", acme.key, json=big)
    assert r.status_code == 413 and r.json()["type"] == "urn:hmem:problem:too-large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit still holds
        yield b'{"text": "'
        for _ in range(100):
            yield b"Bob " * 50
        yield b'"}'

    r = _call(server, "POST", f"/v1/users/{bob}/facts", acme.key, content=chunks())
    assert r.status_code == 413


def test_logs_hold_no_text_or_keys(
    server: LiveServer, acme: Tenant, caplog: pytest.LogCaptureFixture
) -> None:
    bob = acme.user("bob")
    with caplog.at_level(logging.INFO, logger="hmem"):
        _call(
            server,
            "POST",
            f"/v1/users/{bob}/facts",
            acme.key,
            json={"text": "Bob has a secret garden."},
        )
        _call(server, "GET", f"/v1/users/{bob}/facts", "hmem_000000000000_" + "y" * 43)
        # The request line is logged after the response is sent: wait for it, never race.
        deadline = time.monotonic() + 30
        while not {201, 401} <= {
            r.__dict__["status"] for r in caplog.records if getattr(r, "event", None) == "request"
        }:
            assert time.monotonic() < deadline, "the request log line never came"
            time.sleep(0.01)
    lines = [r for r in caplog.records if getattr(r, "event", None) == "request"]
    assert len(lines) >= 2
    text = " ".join(str(r.__dict__) for r in caplog.records)
    assert "secret garden" not in text and acme.key not in text and "y" * 43 not in text
    assert {r.__dict__["route"] for r in lines} >= {"/v1/users/{user_id}/facts"}
    assert any(r.__dict__["status"] == 401 for r in lines)
