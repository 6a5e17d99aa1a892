"""The API's pure parts, without a database: problem mapping, keys, logs, the client."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from hmem import Client, ConflictError, NotFoundError, PolicyRefusal, errors
from hmem.api.auth import Principal, external_user_id, stored_user_id
from hmem.api.logs import JsonFormatter
from hmem.api.problems import Forbidden, Unauthenticated, problem_for
from hmem.faces.client import ApiError, AuthenticationError, PermissionDeniedError
from hmem.graph.apikeys import ApiKey, check_tenant, check_user_name, parse_key


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (errors.PolicyRefusal("credential"), 422),
        (errors.NaiveDatetimeError("x"), 422),
        (errors.TextTooLongError("x"), 422),
        (errors.NotFoundError("x"), 404),
        (errors.ConflictError("x"), 409),
        (errors.SchemaError("x"), 503),
        (errors.StoreUnavailableError("x"), 503),
        (errors.ModelUnavailableError("x"), 503),
        (errors.ModelOutputError("x"), 502),
        (errors.ModelAuthError("x"), 502),
        (errors.ConfigError("x"), 500),
        (errors.HmemError("x"), 500),
        (Unauthenticated("x"), 401),
        (Forbidden("x"), 403),
        (RuntimeError("boom: secret text"), 500),
    ],
)
def test_every_error_maps_to_one_status(exc: Exception, status: int) -> None:
    problem, headers = problem_for(exc)
    assert problem.status == status
    assert problem.type.startswith("urn:hmem:problem:")
    if problem.type.endswith(":internal"):
        assert problem.detail is None  # never leak an unexpected message
    if status == 401:
        assert headers["WWW-Authenticate"].startswith("Bearer")
    if status == 503:
        assert headers["Retry-After"] == "1"


def test_policy_problem_names_the_kind_and_strips_inputs() -> None:
    problem, _ = problem_for(errors.PolicyRefusal("payment_card"))
    assert problem.kind == "payment_card" and problem.error == "PolicyRefusal"
    problem, _ = problem_for(
        errors.ValidationError(
            "1 error\ntext\n  too long [input_value='my secret', input_type=str]"
        )
    )
    assert "my secret" not in (problem.detail or "")


def test_tenant_namespacing_and_key_format() -> None:
    assert stored_user_id("acme", "bob") == "acme:bob"
    assert external_user_id("acme:bob") == "bob"
    with pytest.raises(errors.ValidationError):
        check_tenant("Acme:evil")
    assert parse_key("hmem_0123456789ab_" + "x" * 43) == ("0123456789ab", "x" * 43)
    assert parse_key("hmem_0123456789ab_short") is None
    assert parse_key("bearer something") is None


def test_principal_scope_respects_the_user_list() -> None:
    key = ApiKey("0123456789ab", "acme", ("bob",), "", created_at=None)  # type: ignore[arg-type]
    who = Principal(key)
    assert who.scope("bob") == "acme:bob"
    with pytest.raises(Forbidden):
        who.scope("eve")


def test_json_logs_keep_only_allowed_fields() -> None:
    record = logging.LogRecord("hmem.api", logging.INFO, __file__, 1, "request", None, None)
    record.__dict__.update(route="/v1/x", status=200, text="Maya's secret", api_key="hmem_x")
    line = json.loads(JsonFormatter().format(record))
    assert line["route"] == "/v1/x" and line["status"] == 200
    assert "text" not in line and "api_key" not in line


def test_json_logs_read_as_sentences_of_allowed_values_only() -> None:
    """hmem's warnings carry what an operator needs in allowed fields (the job, the
    error's class, why dense search is off); the message is filled with those and with
    numbers, and any other argument is withheld."""
    record = logging.LogRecord(
        "hmem.ingest", logging.WARNING, __file__, 1, "job %s failed: %s", ("j1", "Boom"), None
    )
    record.__dict__.update(job_id="j1", error="ModelOutputError", job_status="failed")
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "job j1 failed: …" and line["template"] == "job %s failed: %s"
    off = logging.LogRecord(
        "hmem.extract",
        logging.WARNING,
        __file__,
        1,
        "dense search is off: %s",
        (OSError("no hub"),),
        None,
    )
    off.__dict__.update(error="no hub")
    assert json.loads(JsonFormatter().format(off))["msg"] == "dense search is off: no hub"
    started = logging.LogRecord(
        "uvicorn.error",
        logging.INFO,
        __file__,
        1,
        "Uvicorn running on %s://%s:%d",
        ("http", "127.0.0.1", 8000),
        None,
    )
    assert (
        json.loads(JsonFormatter().format(started))["msg"]
        == "Uvicorn running on http://127.0.0.1:8000"
    )
    assert (line["job_id"], line["error"], line["job_status"]) == (
        "j1",
        "ModelOutputError",
        "failed",
    )


def _client(status: int, body: object) -> Client:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body)

    return Client("http://test", api_key="k", transport=httpx.MockTransport(answer))


def test_client_rebuilds_errors_from_problems() -> None:
    cases: list[tuple[int, dict[str, object], type[Exception]]] = [
        (404, {"error": "NotFoundError", "detail": "no fact"}, NotFoundError),
        (409, {"error": "ConflictError"}, ConflictError),
        (422, {"error": "PolicyRefusal", "kind": "credential"}, PolicyRefusal),
        (401, {"title": "Missing or invalid API key"}, AuthenticationError),
        (403, {}, PermissionDeniedError),
        (418, {}, ApiError),
    ]
    for status, body, cls in cases:
        with _client(status, body) as client, pytest.raises(cls):
            client.get("f", user_id="u")


def test_client_refuses_naive_datetimes_before_sending() -> None:
    from datetime import datetime

    with _client(200, {}) as client, pytest.raises(errors.NaiveDatetimeError):
        client.facts(user_id="u", as_of=datetime(2026, 1, 1))


def test_client_does_not_import_fastapi() -> None:
    import ast
    from pathlib import Path

    import hmem.faces._client_ops
    import hmem.faces.client

    for module in (hmem.faces.client, hmem.faces._client_ops):
        tree = ast.parse(Path(module.__file__ or "").read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not {n for n in names if n.startswith(("fastapi", "starlette", "hmem.api"))}


def test_unavailable_problem_names_no_internal_address() -> None:
    problem, headers = problem_for(
        errors.StoreUnavailableError(
            "Neo4j is unavailable: Couldn't connect to 10.20.30.40:7687 (resolved to ...)"
        )
    )
    assert problem.status == 503 and headers["Retry-After"]
    assert "10.20.30.40" not in problem.model_dump_json()
    assert problem.detail == "the database is unavailable; retry later"
    queue, _ = problem_for(errors.QueueUnavailableError("/var/lib/hmem/queue.sqlite3 is full"))
    assert queue.status == 503 and "/var/lib" not in queue.model_dump_json()


def test_a_500_closes_the_connection() -> None:
    _, headers = problem_for(RuntimeError("boom"))
    assert headers["Connection"] == "close"
    _, headers = problem_for(errors.NotFoundError("x"))
    assert "Connection" not in headers


@pytest.mark.parametrize("name", ["beta\n", "x:y", "Beta", "", "-a", "a" * 64])
def test_tenant_names_the_api_refuses_are_refused_everywhere(name: str) -> None:
    with pytest.raises(errors.ValidationError):
        check_tenant(name)


@pytest.mark.parametrize("name", ["beta\n", "x:y", "", ".a", "a b", "a/b", "a" * 129])
def test_user_names_the_api_refuses_are_refused_everywhere(name: str) -> None:
    with pytest.raises(errors.ValidationError):
        check_user_name(name)
    assert check_user_name("maya.k@example-1") == "maya.k@example-1"


def test_a_keyed_write_still_running_turns_its_retry_away_at_once() -> None:
    """A retry of a write whose first request still runs here (answered 503 timeout, its
    handler going on) is a 503 at once, not a second write beside the first (issue 45,
    N9: under a Neo4j restart each client's retries multiplied the work)."""
    from hmem.api.idempotent import in_flight
    from hmem.api.problems import WriteInFlight, problem_for

    with in_flight(["ik-1-0"]):
        with pytest.raises(WriteInFlight) as caught, in_flight(["ik-1-0"]):
            pass
        with in_flight(["ik-2-0"]), in_flight(None):  # another key, or none: no wait
            pass
    problem, headers = problem_for(caught.value)
    assert problem.status == 503 and headers["Retry-After"]
    assert "Idempotency-Key" in (problem.detail or "")
    with in_flight(["ik-1-0"]):  # the first one finished: the key is free again
        pass
