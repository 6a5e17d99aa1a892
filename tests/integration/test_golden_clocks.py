"""The three cases of docs/time.md as golden tests, with the expected answers written
out, through every face: ``facts``, ``get`` and ``history`` as of a belief time,
search (hits and context block) and the MCP ``recall`` tool, on a ``Memory`` and
through the HTTP API (``hmem.Client``, which the adapters and the inspector use).

- Announced change: "I work at Bosch as an engineer." (2026-01-10), then on 2026-11-15
  "I got a new job at Siemens starting next month.": Bosch ends 2026-12-01 and is still
  believed; Siemens is true from 2026-12-01.
- Correction: "My sister lives in Milan." (2025-03-01), then on 2026-05-01 "Actually my
  sister lives in Rome, not Milan.": Milan was never true; Rome takes Milan's start.
- Late news: "I live in London." (2019-01-10), then on 2026-06-10 "I moved to Paris in
  March.": visible as of belief times from June on only, true from 2026-03-01.

Each case is written twice: as plain text read by hmem's rules (``infer``), and as
structured writes (the dates and the supersession given).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from neo4j import Driver

from hmem import Client, Memory, SupersedeReason
from hmem.cli import main
from hmem.errors import NotFoundError, ValidationError
from hmem.faces.adapters._core import Port
from hmem.faces.mcp_server import build_server
from tests.integration.test_api_fixtures import LiveServer, Tenant


def at(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def noon(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 12, tzinfo=UTC)


Writer = Callable[[Any, str], dict[str, str]]


def announced_text(face: Any, user: str) -> dict[str, str]:
    bosch = face.remember(
        "I work at Bosch as an engineer.", user_id=user, observed_at=noon(2026, 1, 10)
    )
    siemens = face.remember(
        "I got a new job at Siemens starting next month.", user_id=user,
        observed_at=noon(2026, 11, 15),
    )  # fmt: skip
    return {"bosch": bosch.added[0], "siemens": siemens.added[0]}


def announced_structured(face: Any, user: str) -> dict[str, str]:
    bosch = face.remember(
        "I work at Bosch as an engineer.", user_id=user, observed_at=noon(2026, 1, 10),
        valid_from=noon(2026, 1, 10), entities=["Bosch"],
    )  # fmt: skip
    siemens = face.remember(
        "I got a new job at Siemens starting next month.", user_id=user,
        observed_at=noon(2026, 11, 15), valid_from=at(2026, 12, 1), supersedes=bosch.added,
        entities=["Siemens"],
    )  # fmt: skip
    return {"bosch": bosch.added[0], "siemens": siemens.added[0]}


def correction_text(face: Any, user: str) -> dict[str, str]:
    milan = face.remember("My sister lives in Milan.", user_id=user, observed_at=noon(2025, 3, 1))
    rome = face.remember(
        "Actually my sister lives in Rome, not Milan.", user_id=user,
        observed_at=noon(2026, 5, 1),
    )  # fmt: skip
    return {"milan": milan.added[0], "rome": rome.added[0]}


def correction_structured(face: Any, user: str) -> dict[str, str]:
    milan = face.remember(
        "My sister lives in Milan.", user_id=user, observed_at=noon(2025, 3, 1),
        valid_from=noon(2025, 3, 1), entities=["Milan"],
    )  # fmt: skip
    rome = face.remember(
        "Actually my sister lives in Rome, not Milan.", user_id=user,
        observed_at=noon(2026, 5, 1), supersedes=milan.added, reason="user_edit",
        entities=["Rome"],
    )  # fmt: skip
    return {"milan": milan.added[0], "rome": rome.added[0]}


def late_text(face: Any, user: str) -> dict[str, str]:
    london = face.remember("I live in London.", user_id=user, observed_at=noon(2019, 1, 10))
    paris = face.remember("I moved to Paris in March.", user_id=user, observed_at=noon(2026, 6, 10))
    return {"london": london.added[0], "paris": paris.added[0]}


def late_structured(face: Any, user: str) -> dict[str, str]:
    london = face.remember(
        "I live in London.", user_id=user, observed_at=noon(2019, 1, 10),
        valid_from=noon(2019, 1, 10), entities=["London"],
    )  # fmt: skip
    paris = face.remember(
        "I moved to Paris in March.", user_id=user, observed_at=noon(2026, 6, 10),
        valid_from=at(2026, 3, 1), supersedes=london.added, entities=["Paris"],
    )  # fmt: skip
    return {"london": london.added[0], "paris": paris.added[0]}


def listed(face: Any, user: str, **when: datetime) -> list[tuple[str, datetime | None]]:
    """``facts`` as (text, valid_to) pairs."""
    return [(f.text, f.valid_to) for f in face.facts(user_id=user, **when)]


BOSCH, SIEMENS = (
    "I work at Bosch as an engineer.",
    "I got a new job at Siemens starting next month.",
)
MILAN, ROME = "My sister lives in Milan.", "Actually my sister lives in Rome, not Milan."
LONDON, PARIS = "I live in London.", "I moved to Paris in March."


def check_announced(face: Any, user: str, ids: dict[str, str]) -> None:
    bosch = face.get(ids["bosch"], user_id=user)
    siemens = face.get(ids["siemens"], user_id=user)
    assert (bosch.valid_to, bosch.close_reason) == (at(2026, 12, 1), SupersedeReason.CONTRADICTION)
    assert bosch.withdrawn_at is None  # still believed, with its end
    assert siemens.valid_from == at(2026, 12, 1)
    # believed on 16 Nov, true on 20 Nov: Bosch, until December (not nothing)
    assert listed(face, user, as_of=at(2026, 11, 16), as_of_event=at(2026, 11, 20)) == [
        (BOSCH, at(2026, 12, 1))
    ]
    assert listed(face, user, as_of=at(2026, 11, 16)) == [(BOSCH, at(2026, 12, 1))]
    assert listed(face, user, as_of=at(2026, 11, 16), as_of_event=at(2026, 12, 5)) == [
        (SIEMENS, None)
    ]
    # before the announcement, December was Bosch's with no end
    assert listed(face, user, as_of=at(2026, 11, 10), as_of_event=at(2026, 12, 5)) == [
        (BOSCH, None)
    ]
    # as believed now: true in June was Bosch, until December
    assert listed(face, user, as_of_event=at(2026, 6, 1)) == [(BOSCH, at(2026, 12, 1))]
    # as of 16 Nov, Bosch is shown closed then (the close was learned on 15 Nov)
    then = face.get(ids["bosch"], user_id=user, as_of=at(2026, 11, 16))
    assert (then.valid_to, then.known_to) == (at(2026, 12, 1), noon(2026, 11, 15))
    before = face.get(ids["bosch"], user_id=user, as_of=at(2026, 11, 10))
    assert (before.valid_to, before.known_to, before.close_reason) == (None, None, None)
    chain = face.history(ids["siemens"], user_id=user, as_of=at(2026, 11, 16))
    assert [s.fact.text for s in chain.predecessors] == [BOSCH]
    # search on 20 Nov: Bosch is a hit (current until December), Siemens reads "from"
    found = face.search("What is my work, my job?", user_id=user, now=at(2026, 11, 20))
    texts = {h.fact.text for h in found.hits}
    assert BOSCH in texts, found.context
    # "next month" with the month it meant beside it (issue 49 item 11)
    siemens = "- I got a new job at Siemens starting next month [2026-12] (from 2026-12-01"
    assert siemens in found.context
    assert "- I work at Bosch as an engineer (2026-01-10 → 2026-12-01" in found.context
    found = face.search(
        "Where do I work?", user_id=user, as_of=at(2026, 11, 16), as_of_event=at(2026, 11, 20)
    )
    assert [h.fact.text for h in found.hits] == [BOSCH]
    found = face.search(
        "Where do I work?", user_id=user, as_of=at(2026, 11, 16), as_of_event=at(2026, 12, 5)
    )
    assert [h.fact.text for h in found.hits] == [SIEMENS]


def check_correction(face: Any, user: str, ids: dict[str, str]) -> None:
    milan = face.get(ids["milan"], user_id=user)
    rome = face.get(ids["rome"], user_id=user)
    assert milan.close_reason is SupersedeReason.USER_EDIT
    assert milan.withdrawn_at == noon(2026, 5, 1)
    assert rome.valid_from == noon(2025, 3, 1)  # Milan's start: true all along
    assert listed(face, user) == [(ROME, None)]
    assert listed(face, user, as_of_event=at(2025, 6, 1)) == [(ROME, None)]
    assert listed(face, user, as_of=at(2026, 4, 1)) == [(MILAN, None)]
    assert listed(face, user, as_of=at(2026, 4, 1), as_of_event=at(2025, 6, 1)) == [(MILAN, None)]
    assert listed(face, user, as_of=at(2026, 5, 2), as_of_event=at(2025, 6, 1)) == [(ROME, None)]
    found = face.search("Where does my sister live?", user_id=user, as_of_event=at(2025, 6, 1))
    assert [h.fact.text for h in found.hits] == [ROME]
    found = face.search("Where does my sister live?", user_id=user, as_of=at(2026, 4, 1))
    assert [h.fact.text for h in found.hits] == [MILAN]


def check_late(face: Any, user: str, ids: dict[str, str]) -> None:
    paris = face.get(ids["paris"], user_id=user)
    london = face.get(ids["london"], user_id=user)
    assert paris.valid_from == at(2026, 3, 1)
    assert (london.valid_to, london.known_to) == (at(2026, 3, 1), noon(2026, 6, 10))
    # before June nothing was known of Paris, whatever world time is asked about
    assert listed(face, user, as_of=at(2026, 5, 1)) == [(LONDON, None)]
    assert listed(face, user, as_of=at(2026, 5, 1), as_of_event=at(2026, 4, 1)) == [(LONDON, None)]
    assert listed(face, user, as_of=at(2026, 6, 11), as_of_event=at(2026, 4, 1)) == [(PARIS, None)]
    assert listed(face, user, as_of=at(2026, 6, 11), as_of_event=at(2026, 2, 1)) == [
        (LONDON, at(2026, 3, 1))
    ]
    assert listed(face, user) == [(PARIS, None)]
    found = face.search("Where do I live?", user_id=user, as_of=at(2026, 5, 1))
    assert [h.fact.text for h in found.hits] == [LONDON]
    found = face.search(
        "Where do I live?", user_id=user, as_of=at(2026, 6, 11), as_of_event=at(2026, 2, 1)
    )
    assert [h.fact.text for h in found.hits] == [LONDON]


CASES: list[tuple[str, Writer, Callable[[Any, str, dict[str, str]], None]]] = [
    ("announced, text", announced_text, check_announced),
    ("announced, structured", announced_structured, check_announced),
    ("correction, text", correction_text, check_correction),
    ("correction, structured", correction_structured, check_correction),
    ("late news, text", late_text, check_late),
    ("late news, structured", late_structured, check_late),
]


@pytest.mark.parametrize(("name", "write", "check"), CASES, ids=[c[0] for c in CASES])
def test_three_cases_on_memory(
    memory: Memory, user_id: str, name: str, write: Writer, check: Callable[..., None]
) -> None:
    check(memory, user_id, write(memory, user_id))


@pytest.mark.parametrize(("name", "write", "check"), CASES, ids=[c[0] for c in CASES])
def test_three_cases_over_http(
    server: LiveServer, tenant: Tenant, name: str, write: Writer, check: Callable[..., None]
) -> None:
    user = tenant.user("clocks")
    with Client(server.url, api_key=tenant.key) as client:
        check(client, user, write(client, user))


def _cli(*args: str) -> list[str]:
    out = CliRunner().invoke(main, list(args))
    assert out.exit_code == 0, out.output
    return out.output.splitlines()


def _row(fact_id: str, window: str, state: str, text: str) -> str:
    """A line of ``hmem facts`` (hmem/cli/main.py ``_line``)."""
    return f"{fact_id}  [{window}] {state:<24} {text}"


B16, B0410, B0501, B0611 = (
    "2026-11-16T00:00:00Z",
    "2026-04-01T00:00:00Z",
    "2026-05-02T00:00:00Z",
    "2026-06-11T00:00:00Z",
)


def test_the_three_cases_on_the_cli(memory: Memory) -> None:
    """``hmem facts``, ``hmem history`` and ``hmem search`` with ``--as-of`` (belief) and
    ``--as-of-event`` (world), the expected lines written out."""
    users = [f"cli-{uuid.uuid4().hex[:10]}" for _ in range(3)]
    try:
        announced = announced_structured(memory, users[0])
        bosch, siemens = announced["bosch"], announced["siemens"]
        u = ["--user", users[0]]
        bosch_closed = _row(bosch, "2026-01-10→2026-12-01", "closed (contradiction)", BOSCH)
        bosch_open = _row(bosch, "2026-01-10→", "open", BOSCH)
        siemens_open = _row(siemens, "2026-12-01→", "open", SIEMENS)
        assert _cli("facts", *u) == [siemens_open]
        # believed on 16 Nov: Bosch, ending 1 Dec (still believed); true on 5 Dec: Siemens
        assert _cli("facts", *u, "--as-of", B16) == [bosch_closed]
        assert _cli("facts", *u, "--as-of", B16, "--as-of-event", "2026-11-20T00:00:00Z") == [
            bosch_closed
        ]
        assert _cli("facts", *u, "--as-of", B16, "--as-of-event", "2026-12-05T00:00:00Z") == [
            siemens_open
        ]
        assert _cli("facts", *u, "--as-of", "2026-11-10T00:00:00Z", "--as-of-event",
                    "2026-12-05T00:00:00Z") == [bosch_open]  # fmt: skip
        assert _cli("history", *u, "--as-of", B16, siemens) == [
            f"before  {bosch_closed}  (contradiction on 2026-11-15)",
            f"this    {siemens_open}",
        ]
        assert _cli("history", *u, "--as-of", "2026-11-10T00:00:00Z", bosch) == [
            f"this    {bosch_open}"
        ]
        context = "\n".join(_cli("search", *u, "--as-of", B16, "--as-of-event",
                                 "2026-11-20T00:00:00Z", "Where do I work?"))  # fmt: skip
        assert "- I work at Bosch as an engineer (2026-01-10 → 2026-12-01" in context, context

        correction = correction_structured(memory, users[1])
        milan, rome = correction["milan"], correction["rome"]
        u = ["--user", users[1]]
        rome_open = _row(rome, "2025-03-01→", "open", ROME)
        milan_open = _row(milan, "2025-03-01→", "open", MILAN)
        milan_never = _row(milan, "2025-03-01→2025-03-01", "closed (user_edit)", MILAN)
        assert _cli("facts", *u) == [rome_open]
        assert _cli("facts", *u, "--as-of-event", "2025-06-01T00:00:00Z") == [rome_open]
        assert _cli("facts", *u, "--as-of", B0410) == [milan_open]
        assert _cli("facts", *u, "--as-of", B0501, "--as-of-event", "2025-06-01T00:00:00Z") == [
            rome_open
        ]
        assert _cli("history", *u, rome) == [
            f"before  {milan_never}  (user_edit on 2026-05-01)",
            f"this    {rome_open}",
        ]
        assert _cli("history", *u, "--as-of", B0410, milan) == [f"this    {milan_open}"]

        late = late_structured(memory, users[2])
        london, paris = late["london"], late["paris"]
        u = ["--user", users[2]]
        london_open = _row(london, "2019-01-10→", "open", LONDON)
        london_ended = _row(london, "2019-01-10→2026-03-01", "closed (contradiction)", LONDON)
        paris_open = _row(paris, "2026-03-01→", "open", PARIS)
        assert _cli("facts", *u) == [paris_open]
        # before June nothing was known of Paris, whatever world time is asked about
        assert _cli("facts", *u, "--as-of", "2026-05-01T00:00:00Z") == [london_open]
        assert _cli("facts", *u, "--as-of", "2026-05-01T00:00:00Z", "--as-of-event",
                    "2026-04-01T00:00:00Z") == [london_open]  # fmt: skip
        assert _cli("facts", *u, "--as-of", B0611, "--as-of-event", "2026-04-01T00:00:00Z") == [
            paris_open
        ]
        assert _cli("facts", *u, "--as-of", B0611, "--as-of-event", "2026-02-01T00:00:00Z") == [
            london_ended
        ]
        assert _cli("history", *u, "--as-of", "2026-05-01T00:00:00Z", london) == [
            f"this    {london_open}"
        ]
        assert _cli("history", *u, paris) == [
            f"before  {london_ended}  (contradiction on 2026-06-10)",
            f"this    {paris_open}",
        ]
    finally:
        for user in users:
            memory.erase_user(user)


def _tools(backend: Any, user: str) -> Callable[..., str]:
    mcp = build_server(backend, user_id=user)

    def call(tool: str, **args: str) -> str:
        result = asyncio.run(mcp.call_tool(tool, dict(args)))
        return "\n".join(c.text for c in result.content)  # type: ignore[union-attr]

    return call


def test_mcp_recall_and_history_read_the_three_cases(memory: Memory) -> None:
    """The MCP tools ``recall`` (with and without a query) and ``history``: a fact true
    only from a later day than the view's world time reads "from", a correction's old
    fact "never true"."""
    users = [f"mcp-{uuid.uuid4().hex[:10]}" for _ in range(3)]
    try:
        ids = announced_structured(memory, users[0])
        bosch = f"[{ids['bosch']}] {BOSCH}"
        siemens = f"[{ids['siemens']}] {SIEMENS}"
        call = _tools(memory, users[0])
        assert call("recall") == f"{siemens} (true since 2026-12-01)"
        assert call("recall", as_of=B16) == f"{bosch} (true since 2026-01-10 until 2026-12-01)"
        assert call("recall", query="Where do I work?", as_of=B16) == (
            f"{bosch} (true since 2026-01-10 until 2026-12-01) [contradiction on 2026-11-15 "
            f"by: {siemens} (from 2026-12-01)]"
        )
        assert call("history", fact_id=ids["siemens"]) == (
            f"before: {bosch} (true since 2026-01-10 until 2026-12-01) — contradiction on "
            f"2026-11-15\nthis:   {siemens} (true since 2026-12-01)"
        )

        ids = correction_structured(memory, users[1])
        milan = f"[{ids['milan']}] {MILAN}"
        rome = f"[{ids['rome']}] {ROME}"
        call = _tools(memory, users[1])
        assert call("recall") == f"{rome} (true since 2025-03-01)"
        assert call("recall", as_of=B0410) == f"{milan} (true since 2025-03-01)"
        assert call("recall", query="Where does my sister live?") == (
            f"{rome} (true since 2025-03-01) [replaced on 2026-05-01: {milan} (never true)]"
        )
        assert call("history", fact_id=ids["milan"]) == (
            f"this:   {milan} (never true)\n"
            f"after:  {rome} (true since 2025-03-01) — user_edit on 2026-05-01"
        )

        ids = late_structured(memory, users[2])
        london = f"[{ids['london']}] {LONDON}"
        paris = f"[{ids['paris']}] {PARIS}"
        call = _tools(memory, users[2])
        assert call("recall", as_of="2026-05-01T00:00:00Z") == f"{london} (true since 2019-01-10)"
        assert call("recall", as_of=B0611, as_of_event="2026-04-01T00:00:00Z") == (
            f"{paris} (true since 2026-03-01)"
        )
        assert call(
            "recall", query="Where do I live?", as_of=B0611, as_of_event="2026-02-01T00:00:00Z"
        ) == (
            f"{london} (true since 2019-01-10 until 2026-03-01) [contradiction on 2026-06-10 "
            f"by: {paris} (from 2026-03-01)]"
        )
        assert call("history", fact_id=ids["london"]) == (
            f"this:   {london} (true since 2019-01-10 until 2026-03-01)\n"
            f"after:  {paris} (true since 2026-03-01) — contradiction on 2026-06-10"
        )
    finally:
        for user in users:
            memory.erase_user(user)


@pytest.mark.parametrize("over", ["memory", "http"])
def test_the_adapters_tool_bodies_read_the_three_cases(
    memory: Memory, server: LiveServer, tenant: Tenant, over: str
) -> None:
    """Every framework adapter's ``recall`` and ``history`` tools return ``Port``'s texts
    (hmem/faces/adapters/_core.py): the history lines mark a fact no longer current at
    the view's world time ``[replaced]``; one replaced from a later day is not."""
    backend: Any = memory if over == "memory" else Client(server.url, api_key=tenant.key)
    users = [tenant.user("port") for _ in range(3)]
    port = Port(backend)
    try:
        ids = announced_structured(backend, users[0])
        bosch = f"[{ids['bosch']}] {BOSCH}"
        siemens = f"[{ids['siemens']}] {SIEMENS}"
        history = asyncio.run(port.history(users[0], ids["siemens"]))
        assert history == (
            f"before: {bosch} (true since 2026-01-10 until 2026-12-01) [replaced] — "
            f"contradiction on 2026-11-15\nthis:   {siemens} (true since 2026-12-01)"
        )
        # believed on 16 Nov, true on 20 Nov: Bosch, still current (not [replaced])
        recalled = asyncio.run(port.recall(users[0], as_of=B16, as_of_event="2026-11-20T00:00:00Z"))
        assert recalled == f"{bosch} (true since 2026-01-10 until 2026-12-01)"
        recalled = asyncio.run(port.recall(users[0], as_of=B16, as_of_event="2026-12-05T00:00:00Z"))
        assert recalled == f"{siemens} (true since 2026-12-01)"

        ids = correction_structured(backend, users[1])
        milan = f"[{ids['milan']}] {MILAN}"
        rome = f"[{ids['rome']}] {ROME}"
        assert asyncio.run(port.history(users[1], ids["rome"])) == (
            f"before: {milan} (never true) [replaced] — user_edit on 2026-05-01\n"
            f"this:   {rome} (true since 2025-03-01)"
        )
        assert asyncio.run(port.recall(users[1], as_of=B0410)) == (
            f"{milan} (true since 2025-03-01)"
        )

        ids = late_structured(backend, users[2])
        london = f"[{ids['london']}] {LONDON}"
        paris = f"[{ids['paris']}] {PARIS}"
        assert asyncio.run(port.history(users[2], ids["paris"])) == (
            f"before: {london} (true since 2019-01-10 until 2026-03-01) [replaced] — "
            f"contradiction on 2026-06-10\nthis:   {paris} (true since 2026-03-01)"
        )
        # as believed on 11 June, true on 1 February: London, ended by then? no: until March
        recalled = asyncio.run(
            port.recall(users[2], as_of=B0611, as_of_event="2026-02-01T00:00:00Z")
        )
        assert recalled == f"{london} (true since 2019-01-10 until 2026-03-01)"
        recalled = asyncio.run(port.recall(users[2], as_of="2026-05-01T00:00:00Z"))
        assert recalled == f"{london} (true since 2019-01-10)"
    finally:
        if over == "memory":
            for user in users:
                memory.erase_user(user)
        else:
            backend.shutdown()


def test_mcp_recall_reads_the_announced_change(memory: Memory, user_id: str) -> None:
    ids = announced_structured(memory, user_id)
    mcp = build_server(memory, user_id=user_id)

    def recall(**args: str) -> str:
        result = asyncio.run(mcp.call_tool("recall", dict(args)))
        return "\n".join(c.text for c in result.content)  # type: ignore[union-attr]

    assert recall(as_of="2026-11-16T00:00:00Z", as_of_event="2026-11-20T00:00:00Z") == (
        f"[{ids['bosch']}] {BOSCH} (true since 2026-01-10 until 2026-12-01)"
    )
    assert recall(as_of="2026-11-16T00:00:00Z", as_of_event="2026-12-05T00:00:00Z") == (
        f"[{ids['siemens']}] {SIEMENS} (true since 2026-12-01)"
    )
    before = recall(query="Where do I work?", as_of="2026-11-10T00:00:00Z")
    assert before.startswith(f"[{ids['bosch']}] {BOSCH} (true since 2026-01-10)"), before


def test_restore_is_a_new_belief_and_leaves_the_past(memory: Memory, user_id: str) -> None:
    """Issue 45 N11: a fact retracted in 2024 and restored later is still absent from a
    view as of June 2024; from the restore on it is believed again."""
    kept = memory.remember(
        "Oracle Nora keeps bees.", user_id=user_id, observed_at=at(2023, 5, 1),
        valid_from=at(2023, 5, 1), infer=False,
    ).added[0]  # fmt: skip
    memory.close(kept, user_id=user_id, observed_at=at(2024, 3, 1))
    memory.restore(kept, user_id=user_id, observed_at=at(2025, 1, 1))
    assert listed(memory, user_id, as_of=at(2024, 6, 1)) == []
    assert listed(memory, user_id, as_of=at(2023, 6, 1)) == [("Oracle Nora keeps bees.", None)]
    assert listed(memory, user_id, as_of=at(2025, 2, 1)) == [("Oracle Nora keeps bees.", None)]
    then = memory.get(kept, user_id=user_id, as_of=at(2024, 6, 1))
    assert (then.known_to, then.close_reason) == (at(2024, 3, 1), SupersedeReason.RETRACTION)
    assert memory.get(kept, user_id=user_id).is_open
    # the same through a restore at the server's clock (the default)
    other = memory.remember(
        f"Oracle Nora's hive {uuid.uuid4().hex[:6]} is on the roof.", user_id=user_id,
        observed_at=at(2023, 5, 1), infer=False,
    ).added[0]  # fmt: skip
    memory.close(other, user_id=user_id, observed_at=at(2024, 3, 1))
    memory.restore(other, user_id=user_id)
    assert other not in {f.id for f in memory.facts(user_id=user_id, as_of=at(2024, 6, 1))}
    assert other in {f.id for f in memory.facts(user_id=user_id)}


def test_facts_stored_before_the_belief_history_are_migrated(
    driver: Driver, memory: Memory, user_id: str
) -> None:
    """A store written by an older hmem (no belief history) gets it at schema setup,
    idempotently, and its views read as before: an open fact, a supersession (still
    believed, with its end) and a retraction (withdrawn)."""
    old = [
        {"id": "open", "known_to": None, "valid_to": None, "reason": None},
        {"id": "moved", "known_to": at(2024, 6, 2), "valid_to": at(2024, 6, 1),
         "reason": "contradiction"},
        {"id": "gone", "known_to": at(2024, 6, 2), "valid_to": at(2024, 6, 2),
         "reason": "retraction"},
    ]  # fmt: skip
    driver.execute_query(
        "UNWIND $rows AS r CREATE (f:Fact {user_id: $user_id, id: r.id, text: r.id, "
        "lex_len: 1, category: 'semantic', importance: 5, hash: r.id, valid_from: $start, "
        "valid_to: r.valid_to, known_from: $start, known_to: r.known_to, "
        "close_reason: r.reason, ingested_at: $start, corroborations: 1, source: 'old'})",
        rows=old,
        user_id=user_id,
        start=at(2024, 1, 1),
    )
    memory.store.ensure_schema()
    memory.store.ensure_schema()  # a second setup changes nothing
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact {user_id: $user_id}) RETURN f.id AS id, f.belief_at AS at, "
        "f.belief_why AS why ORDER BY id",
        user_id=user_id,
    )
    assert [(r["id"], len(r["at"]), r["why"]) for r in records] == [
        ("gone", 2, ["", "retraction"]),
        ("moved", 2, ["", "contradiction"]),
        ("open", 1, [""]),
    ]
    ids = lambda **when: sorted(f.id for f in memory.facts(user_id=user_id, **when))  # noqa: E731
    assert ids(as_of=at(2024, 3, 1)) == ["gone", "moved", "open"]
    assert ids(as_of=at(2024, 7, 1), as_of_event=at(2024, 3, 1)) == ["moved", "open"]
    assert ids() == ["open"]


def test_restoring_a_superseded_fact_keeps_every_edge_and_past_belief(
    memory: Memory, user_id: str
) -> None:
    """Issue 48: a restore deletes nothing. Bosch replaced by Siemens (2026-11-15), then
    the replacement undone (2026-11-20): the SUPERSEDES edge stays, marked undone; as of
    2026-11-16 the chain and the views are what was believed then; from 2026-11-20 on
    Bosch is open again and its current history has no successor."""
    ids = announced_structured(memory, user_id)
    bosch, siemens = ids["bosch"], ids["siemens"]
    memory.restore(bosch, user_id=user_id, observed_at=noon(2026, 11, 20))
    [link] = memory.export(user_id).supersessions
    assert (link.new_id, link.old_id, link.reason) == (siemens, bosch, "contradiction")
    assert (link.at, link.undone_at) == (noon(2026, 11, 15), noon(2026, 11, 20))
    # as believed on 16 Nov: Bosch closed by Siemens, the chain as it was
    then = memory.history(bosch, user_id=user_id, as_of=at(2026, 11, 16))
    assert [s.fact.id for s in then.successors] == [siemens]
    assert then.successors[0].link.undone_at is None  # not known on 16 Nov
    assert (then.fact.valid_to, then.fact.close_reason) == (
        at(2026, 12, 1),
        SupersedeReason.CONTRADICTION,
    )
    assert listed(memory, user_id, as_of=at(2026, 11, 16), as_of_event=at(2026, 12, 5)) == [
        (SIEMENS, None)
    ]
    # as believed from 20 Nov on (and now): Bosch open again, no successor; Siemens kept
    now = memory.history(bosch, user_id=user_id)
    assert now.successors == [] and now.fact.is_open
    assert memory.history(siemens, user_id=user_id).predecessors == []
    later = memory.history(bosch, user_id=user_id, as_of=at(2026, 11, 21))
    assert later.successors == [] and later.fact.known_to is None
    assert sorted(listed(memory, user_id, as_of=at(2026, 11, 21), as_of_event=at(2026, 12, 5))) == [
        (SIEMENS, None),
        (BOSCH, None),
    ]
    found = memory.search("Where do I work?", user_id=user_id, as_of=at(2026, 11, 16))
    bosch_hit = next(h for h in found.hits if h.fact.id == bosch)
    assert [s.fact.id for s in bosch_hit.successors] == [siemens]
    found = memory.search("Where do I work?", user_id=user_id)
    bosch_hit = next(h for h in found.hits if h.fact.id == bosch)
    assert bosch_hit.successors == []
    # closed again later: a new close, the undone edge still kept beside it
    memory.close(bosch, user_id=user_id, observed_at=noon(2026, 11, 25), at=at(2026, 12, 1))
    assert [(s.new_id, s.undone_at) for s in memory.export(user_id).supersessions] == [
        (siemens, noon(2026, 11, 20))
    ]


def _views(memory: Memory, user: str) -> list[list[tuple[str, Any, Any, Any]]]:
    """Every view the three cases ask about: ``facts`` at belief times before, between
    and after their changes, each at world times of their own."""
    moments = [None, at(2019, 6, 1), at(2025, 6, 1), at(2026, 2, 1), at(2026, 4, 1),
               at(2026, 5, 2), at(2026, 6, 11), at(2026, 11, 10), at(2026, 11, 16),
               at(2026, 11, 21), at(2026, 12, 5)]  # fmt: skip
    return [
        sorted(
            (f.text, f.valid_to, f.known_to, f.close_reason)
            for f in memory.facts(user_id=user, as_of=b, as_of_event=w)
        )
        for b in moments
        for w in moments
    ]


def _plain(value: Any) -> Any:
    """A dumped model without what differs between a user and its imported copy."""
    if isinstance(value, dict):
        return {
            k: _plain(v)
            for k, v in value.items()
            if k not in ("user_id", "ingested_at", "last_used_at")
        }
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def test_export_carries_the_belief_history_and_an_import_restores_it(
    memory: Memory, user_id: str, other_user: str
) -> None:
    """Issue 48: an export carries each fact's belief history and every SUPERSEDES edge
    (an undone one with its undone_at), not only the current state; ``hmem import
    export`` of it gives a user whose every view, at every belief and world time, reads
    as the original's, whose history as of a past belief time is the same, and whose
    restored fact can be closed and restored again."""
    announced = announced_structured(memory, user_id)
    correction = correction_structured(memory, user_id)
    late = late_structured(memory, user_id)
    memory.restore(announced["bosch"], user_id=user_id, observed_at=noon(2026, 11, 20))
    exported = memory.export(user_id)
    bosch = exported.belief_history[announced["bosch"]]
    assert bosch == [
        (noon(2026, 1, 10), None, None),
        (noon(2026, 11, 15), at(2026, 12, 1), SupersedeReason.CONTRADICTION),
        (noon(2026, 11, 20), None, None),
    ]
    milan = exported.belief_history[correction["milan"]]
    assert [(when, why) for when, _, why in milan] == [
        (noon(2025, 3, 1), None),
        (noon(2026, 5, 1), SupersedeReason.USER_EDIT),
    ]
    # the JSON of `hmem export`, read back by `hmem import export`
    runner = CliRunner()
    out = runner.invoke(main, ["export", "--user", user_id])
    assert out.exit_code == 0, out.output
    path = Path(tempfile.mkdtemp()) / "export.json"
    path.write_text(out.output, encoding="utf-8")
    out = runner.invoke(main, ["import", "export", "--user", other_user, str(path)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output.splitlines()[-1]) == {
        "facts_in_file": 6, "facts": 6, "existing": 0, "links": 3,
    }  # fmt: skip
    again = runner.invoke(main, ["import", "export", "--user", other_user, str(path)])
    assert json.loads(again.output.splitlines()[-1])["facts"] == 0  # a rerun adds nothing

    assert _views(memory, other_user) == _views(memory, user_id)
    copy = memory.export(other_user)
    assert copy.belief_history == exported.belief_history
    assert copy.supersessions == exported.supersessions
    for fid in [*announced.values(), *correction.values(), *late.values()]:
        for when in (None, at(2026, 5, 2), at(2026, 11, 16), at(2026, 11, 21)):
            try:
                mine = memory.history(fid, user_id=user_id, as_of=when)
            except NotFoundError:
                with pytest.raises(NotFoundError):
                    memory.history(fid, user_id=other_user, as_of=when)
                continue
            theirs = memory.history(fid, user_id=other_user, as_of=when)
            assert _plain(theirs.model_dump(mode="json")) == _plain(mine.model_dump(mode="json"))
    # the imported restore is a restore: closing Bosch and restoring it again works
    memory.close(announced["bosch"], user_id=other_user, observed_at=noon(2026, 11, 25))
    back = memory.restore(announced["bosch"], user_id=other_user, observed_at=noon(2026, 11, 26))
    assert back.is_open and back.valid_to is None


def test_an_export_whose_belief_history_disagrees_is_refused(
    memory: Memory, user_id: str, other_user: str
) -> None:
    """Bad input: a belief history that does not end in the fact's state is a clear
    error, and nothing of the file is written."""
    announced_structured(memory, user_id)
    exported = memory.export(user_id)
    [first, *_] = exported.facts
    # a history that starts before the fact was learned
    exported.belief_history[first.id] = [(at(2020, 1, 1), None, None)]
    with pytest.raises(ValidationError, match="belief history does not match"):
        memory.import_export(exported, user_id=other_user)
    assert memory.facts(user_id=other_user, include_closed=True) == []
