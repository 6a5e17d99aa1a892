"""An MCP server for agent hosts: ``remember``, ``recall``, ``history``, ``forget``.

One server serves one user, fixed when it starts (``hmem mcp --user maya``): the model
can never choose whose memory it reads. The backend is any ``hmem.surface.MemorySurface``:
an embedded ``Memory`` (Neo4j directly) or a ``Client`` of a running hmem API (the API
key's tenant and user list then apply too).

``forget`` closes a fact (a retraction, or ``never_true`` for a mistake): it stops being
believed, stays in history, and can be restored. A model never deletes; real erasure is
a human's call through the API or ``hmem erase``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from hmem import __version__
from hmem.errors import HmemError
from hmem.faces import _lines
from hmem.faces._lines import day
from hmem.faces._lines import fact_line as format_fact
from hmem.models import SupersedeReason

if TYPE_CHECKING:  # the read path loads in the backend's thread, not before `initialize`
    from hmem.recall.models import Hit
    from hmem.surface import AsOfOptions, MemorySurface, RememberOptions

__all__ = ["build_server", "format_fact", "format_hit", "parse_when"]

_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")

INSTRUCTIONS = """\
Long-term memory about the user. Call `recall` before answering anything personal.
Call `remember` with one self-contained statement (real names, absolute dates) when the
user tells you something worth keeping; pass `supersedes` with the ids of facts it
replaces. Call `forget` when the user says a remembered fact is wrong or no longer true.
Never store secrets (passwords, card numbers): they are refused anyway.
"""


def parse_when(name: str, value: str | None) -> datetime | None:
    """A tool argument as an aware datetime, validated as the HTTP API does (ISO 8601
    with a zone); anything else is a ``ToolError`` naming the argument."""
    try:
        return _lines.parse_when(name, value)
    except HmemError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from None


def format_hit(hit: Hit, now: datetime | None = None) -> str:
    """A recalled fact with its history, both ways with both dates: a replaced fact names
    its replacement ("replaced on D by: [id] text (true since …)"), a fact that replaced
    one names it ("replaced: [id] text (true since … until …)"). ``now``: the view's
    world time (a fact true only from a later day reads "from D")."""
    line = format_fact(hit.fact, now)
    if hit.fact.known_to is not None:
        if hit.successors:
            step = max(hit.successors, key=lambda s: s.link.at)
            by = format_fact(step.fact, now)
            line += f" [{step.link.reason} on {day(step.link.at)} by: {by}]"
        else:
            reason = hit.fact.close_reason or SupersedeReason.RETRACTION
            line += f" [{reason} on {day(hit.fact.known_to)}]"
    elif hit.predecessors:
        step = max(hit.predecessors, key=lambda s: s.link.at)
        line += f" [replaced on {day(step.link.at)}: {format_fact(step.fact, now)}]"
    return line


def build_server(
    backend: MemorySurface,
    *,
    user_id: str,
    recall_limit: int = 50,
    middleware: Sequence[Any] = (),
) -> MCPServer:
    """The MCP server bound to one user of ``backend`` (``middleware``: the SDK's
    ``ServerMiddleware``, outermost first)."""
    server: MCPServer = MCPServer(
        name="hmem", version=__version__, instructions=INSTRUCTIONS, middleware=list(middleware)
    )

    # Every tool answers plain text for the model to read, declared without an output
    # schema (structured_output=False): with one, the SDK wraps the text in
    # {"result": ...} and a host's client validates every answer against the schema,
    # its first validation importing jsonschema (about 45 ms of the first `recall`).
    def guard(exc: HmemError) -> ToolError:
        # as the HTTP API's problems: the kind and the sentence, never a quoted value
        # (a fact id, a name) the error carried
        return ToolError(f"{type(exc).__name__}: {_QUOTED.sub('[withheld]', str(exc))}")

    @server.tool(
        structured_output=False,
        description="Remember one fact about the user (15-80 words, absolute dates). "
        "valid_from / valid_to: when it became / stopped being true in the world; "
        "observed_at: when the user said it (default now). Dates are ISO 8601 with a "
        "time zone, e.g. 2026-03-01T00:00:00Z: pass them when backfilling history. "
        "infer: read dates and changes from the words (default: when neither supersedes "
        "nor valid_from/valid_to is given); false stores the text exactly as given.",
    )
    def remember(
        text: str,
        supersedes: list[str] | None = None,
        entities: list[str] | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
        observed_at: str | None = None,
        infer: bool | None = None,
    ) -> str:
        options: RememberOptions = {
            "valid_from": parse_when("valid_from", valid_from),
            "valid_to": parse_when("valid_to", valid_to),
            "observed_at": parse_when("observed_at", observed_at),
            "supersedes": supersedes or [],
            "entities": entities or [],
            "source": "mcp",
            "infer": infer,
        }
        try:
            result = backend.remember(text, user_id=user_id, **options)
        except HmemError as exc:
            raise guard(exc) from exc
        if not result.added:
            if result.merged:
                return f"Already known as {', '.join(result.merged)}; nothing new was stored."
            return "Already known; nothing new was stored."
        why = {link.old_id: f" ({link.reason}: {link.cue})" for link in result.inferred}
        closed = ", ".join(f"{old}{why.get(old, '')}" for old in result.superseded)
        replaced = f"; it replaces {closed}" if result.superseded else ""
        return f"Remembered as {result.added[0]}{replaced}."

    @server.tool(
        structured_output=False,
        description="What is known about the user that answers `query` (no query: all "
        "current facts). Replaced facts come with what replaced them. as_of: what was "
        "believed at that instant; as_of_event: what was true in the world then "
        "(ISO 8601 with a time zone, e.g. 2026-02-01T00:00:00Z).",
    )
    def recall(query: str = "", as_of: str | None = None, as_of_event: str | None = None) -> str:
        when: AsOfOptions = {
            "as_of": parse_when("as_of", as_of),
            "as_of_event": parse_when("as_of_event", as_of_event),
        }
        # the view's world time: what "from <date>" is read against (docs/time.md)
        view = when["as_of_event"] or when["as_of"]
        try:
            if not query.strip():
                facts = backend.facts(user_id=user_id, limit=recall_limit, **when)
                lines = [format_fact(f, view) for f in facts]
            else:
                found = backend.search(query, user_id=user_id, **when)
                lines = [format_hit(h, view) for h in found.hits]
        except HmemError as exc:
            raise guard(exc) from exc
        return "\n".join(lines) if lines else "Nothing is remembered about that yet."

    @server.tool(
        description="A fact with what it replaced and what replaced it, with dates.",
        structured_output=False,
    )
    def history(fact_id: str) -> str:
        try:
            chain = backend.history(fact_id, user_id=user_id)
        except HmemError as exc:
            raise guard(exc) from exc
        return _lines.history_text(chain)

    @server.tool(
        structured_output=False,
        description="Stop believing a fact (it stays in history and can be restored). "
        "never_true=True when it was a mistake rather than something that ended.",
    )
    def forget(fact_id: str, never_true: bool = False) -> str:
        reason = SupersedeReason.USER_EDIT if never_true else SupersedeReason.RETRACTION
        try:
            fact = backend.close(fact_id, user_id=user_id, reason=reason)
        except HmemError as exc:
            raise guard(exc) from exc
        return f"Forgotten: {fact.id} is closed ({reason.value})."

    return server
