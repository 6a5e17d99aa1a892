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


class _Missing:
    """A backend whose every fact is missing: the error names the id, as the store's does."""

    def history(self, fact_id: str, *, user_id: str) -> object:
        from hmem.errors import NotFoundError

        raise NotFoundError(f"no fact {fact_id!r} for user {user_id!r}")


def test_a_tool_error_withholds_the_ids_it_carried() -> None:
    """Issue 45 N16: as the API's problems, the kind and the sentence, no quoted id."""
    server = build_server(_Missing(), user_id="maya-42")  # type: ignore[arg-type]
    try:
        result = asyncio.run(server.call_tool("history", {"fact_id": "f-secret-id"}))
    except Exception as exc:  # the SDK raises the ToolError, or wraps it in the result
        text = str(exc)
    else:
        text = str(result)
    assert "NotFoundError" in text
    assert "f-secret-id" not in text and "maya-42" not in text
