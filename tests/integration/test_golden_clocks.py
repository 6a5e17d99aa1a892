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
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver

from hmem import Client, Memory, SupersedeReason
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
