"""``hmem mcp`` over stdio, driven by the official MCP client: dated remembers and
as-of recalls, and bad dates answered as tool errors."""

from __future__ import annotations

import asyncio
import os
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from hmem import Memory

SERVER = "from hmem.cli import main; main()"


def _text(result: object) -> str:
    return "\n".join(c.text for c in result.content)  # type: ignore[attr-defined]


async def _session_story(user_id: str) -> dict[str, object]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", SERVER, "mcp", "--user", user_id],
        env={k: v for k, v in os.environ.items() if k.startswith(("HMEM_", "PATH"))},
    )
    seen: dict[str, object] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        seen["remember_args"] = set(tools["remember"].input_schema["properties"])
        seen["recall_args"] = set(tools["recall"].input_schema["properties"])
        london = _text(
            await session.call_tool(
                "remember",
                {
                    "text": "Ana lives in Lisbon.",
                    "valid_from": "2019-09-01T00:00:00Z",
                    "observed_at": "2025-01-14T09:00:00+00:00",
                    "entities": ["Ana", "Lisbon"],
                },
            )
        )
        lisbon_id = london.split()[2].rstrip(".")
        seen["moved"] = _text(
            await session.call_tool(
                "remember",
                {
                    "text": "Ana moved from Lisbon to Porto in March 2026.",
                    "valid_from": "2026-03-01T00:00:00Z",
                    "observed_at": "2026-03-02T09:00:00Z",
                    "supersedes": [lisbon_id],
                },
            )
        )
        seen["now"] = _text(await session.call_tool("recall", {}))
        seen["true_then"] = _text(
            await session.call_tool("recall", {"as_of_event": "2026-02-01T00:00:00Z"})
        )
        seen["believed_then"] = _text(
            await session.call_tool(
                "recall", {"query": "Where does Ana live?", "as_of": "2025-06-01T00:00:00Z"}
            )
        )
        naive = await session.call_tool(
            "remember", {"text": "Ana likes tea.", "valid_from": "2026-03-01T00:00:00"}
        )
        seen["naive"] = (naive.is_error, _text(naive))
        garbage = await session.call_tool("recall", {"as_of": "last tuesday"})
        seen["garbage"] = (garbage.is_error, _text(garbage))
        backwards = await session.call_tool(
            "remember",
            {
                "text": "Ana lived in Faro.",
                "valid_from": "2020-01-01T00:00:00Z",
                "valid_to": "2019-01-01T00:00:00Z",
            },
        )
        seen["backwards"] = (backwards.is_error, _text(backwards))
    return seen


def test_mcp_over_stdio_with_dates(memory: Memory, user_id: str) -> None:
    seen = asyncio.run(_session_story(user_id))
    assert {"valid_from", "valid_to", "observed_at"} <= seen["remember_args"]  # type: ignore[operator]
    assert {"as_of", "as_of_event"} <= seen["recall_args"]  # type: ignore[operator]
    assert "replaces" in str(seen["moved"])
    assert "Porto" in str(seen["now"]) and "Lisbon." not in str(seen["now"])
    # world time: in February 2026 Ana still lived in Lisbon (true since 2019-09-01)
    assert "Ana lives in Lisbon. (true since 2019-09-01" in str(seen["true_then"])
    assert "Porto" not in str(seen["true_then"])
    # belief time: in June 2025 only Lisbon was known
    assert "Lisbon" in str(seen["believed_then"]) and "Porto" not in str(seen["believed_then"])
    for key in ("naive", "garbage"):
        is_error, text = seen[key]  # type: ignore[misc]
        assert is_error, text
        assert "ValidationError" in text and "time zone" in text, text
    is_error, text = seen["backwards"]  # type: ignore[misc]
    assert is_error and "TemporalOrderError" in text, text
    stored = memory.facts(user_id=user_id, include_closed=True)
    lisbon = next(f for f in stored if f.text == "Ana lives in Lisbon.")
    assert lisbon.valid_from is not None and lisbon.valid_from.year == 2019
    assert lisbon.known_from.year == 2025
    assert [f.text for f in stored if f.text.startswith("Ana likes")] == []


async def _handshake_without_a_store() -> tuple[list[str], bool, str]:
    # Neo4j nowhere: the backend cannot be built, yet the host's handshake and tool list
    # must not wait for it (the backend is built beside them); the first call says why.
    env = {k: v for k, v in os.environ.items() if k.startswith(("HMEM_", "PATH"))}
    env.update(HMEM_NEO4J_URI="bolt://127.0.0.1:9", HMEM_EMBED_PROVIDER="none")
    params = StdioServerParameters(
        command=sys.executable, args=["-c", SERVER, "mcp", "--user", "nobody"], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = sorted(t.name for t in (await session.list_tools()).tools)
        answer = await session.call_tool("recall", {"query": "Where does Ana live?"})
    return names, bool(answer.is_error), _text(answer)


def test_mcp_answers_the_handshake_before_its_backend_is_ready() -> None:
    names, is_error, text = asyncio.run(_handshake_without_a_store())
    assert names == ["forget", "history", "recall", "remember"]
    assert is_error and "StoreUnavailableError" in text, text
