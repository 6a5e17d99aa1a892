"""The MCP tools as a host lists them (no backend needed: listing calls none)."""

from __future__ import annotations

import asyncio

from hmem.faces.mcp_server import build_server


def test_every_tool_answers_plain_text_without_an_output_schema() -> None:
    # With an output schema a host's client validates every answer, and its first
    # validation imports jsonschema: 45 ms of the first `recall` (hmem bench mcp).
    server = build_server(object(), user_id="u")  # type: ignore[arg-type]
    tools = asyncio.run(server.list_tools())
    assert [t.name for t in tools] == ["remember", "recall", "history", "forget"]
    assert [t.output_schema for t in tools] == [None, None, None, None]
