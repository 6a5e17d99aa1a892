"""The framework-free part of the adapters (hmem/faces/adapters/_core.py), in the main venv,
which has no agent framework: each adapter module then names the extra to install."""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from datetime import UTC, datetime

import pytest

from hmem import AsyncClient, Client
from hmem.errors import ValidationError
from hmem.faces.adapters._core import Port, check_user, fail_open, parse_when, scoped_user


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("langgraph", "langgraph"),
        ("pydantic_ai", "pydantic-ai"),
        ("openai_agents", "openai-agents"),
    ],
)
def test_an_adapter_without_its_framework_names_the_extra(module: str, extra: str) -> None:
    with pytest.raises(ImportError, match=rf"pip install 'hmem\[{extra}\]'"):
        importlib.import_module(f"hmem.faces.adapters.{module}")


def test_the_user_is_checked_as_the_api_checks_it() -> None:
    assert check_user("maya.k@example-1") == "maya.k@example-1"
    for bad in ("", "a:b", "a/b", 42, None):
        with pytest.raises(ValidationError):
            check_user(bad)


def test_dates_are_aware_iso_8601() -> None:
    assert parse_when("as_of", "2026-11-01T00:00:00Z") == datetime(2026, 11, 1, tzinfo=UTC)
    assert parse_when("as_of", " ") is None and parse_when("as_of", None) is None
    with pytest.raises(ValidationError, match="valid_from='2026-11-01T00:00:00'"):
        parse_when("valid_from", "2026-11-01T00:00:00")  # no zone: never guessed
    with pytest.raises(ValidationError, match="as_of='last month'"):
        parse_when("as_of", "last month")


def test_the_port_takes_only_hmem_backends_and_keeps_async_clients_async() -> None:
    with pytest.raises(
        TypeError, match=r"hmem\.Memory, hmem\.AsyncMemory, hmem\.Client or hmem\.AsyncClient"
    ):
        Port(object())  # type: ignore[arg-type]
    remote = Port(AsyncClient("http://127.0.0.1:9", api_key="k"))
    assert remote.is_async
    with pytest.raises(TypeError, match="only the async calls"):
        remote.call("search", "q", user_id="u")
    with Client("http://127.0.0.1:9", api_key="k") as client:
        assert not Port(client).is_async


def test_scopes_are_users_of_their_own_that_never_collide() -> None:
    assert scoped_user("maya") == "maya"
    assert scoped_user("maya", agent_id="travel") == "maya.agent-travel"
    assert scoped_user("maya", run_id="r_1") == "maya.run-r_1"
    assert scoped_user("maya", agent_id="a", run_id="r") == "maya.agent-a.run-r"
    for bad in ({"agent_id": "a.b"}, {"run_id": ""}, {"agent_id": "x" * 49}):
        with pytest.raises(ValidationError):
            scoped_user("maya", **bad)
    for reserved in ("maya.agent-x", "maya.run-x"):
        with pytest.raises(ValidationError, match="reserved"):
            scoped_user(reserved)


def test_fail_open_answers_none_in_time_and_says_why(caplog: pytest.LogCaptureFixture) -> None:
    async def hangs() -> str:
        await asyncio.sleep(30)
        return "late"

    async def fails() -> str:
        raise ConnectionError("refused")

    async def bad_user() -> str:
        raise ValidationError("bad user")

    async def run() -> None:
        started = time.monotonic()
        assert await fail_open(hangs(), timeout=0.2) is None
        assert time.monotonic() - started < 5
        assert await fail_open(fails(), timeout=5) is None
        assert await fail_open(asyncio.sleep(0, "ok"), timeout=5) == "ok"
        with pytest.raises(ValidationError):  # a caller's mistake is not swallowed
            await fail_open(bad_user(), timeout=5)

    with caplog.at_level(logging.WARNING, logger="hmem.faces.adapters"):
        asyncio.run(run())
    said = [r.message for r in caplog.records]
    assert any("TimeoutError" in m for m in said)
    assert any("ConnectionError: refused" in m for m in said)
