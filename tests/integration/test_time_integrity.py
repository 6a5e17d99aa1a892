"""Both clocks honest (security review D8, D9, D10; issue 33 "belief-time fidelity").

"As of T" shows each fact as it was believed at T: a ``valid_to``, ``known_to``,
``close_reason``, successor or predecessor learned after T is not shown, at the store
(the Cypher statements) and through the HTTP list, get, history and search views. A
supersession never predates its target's ``known_from``. The default view and
``as_of=now`` agree about a ``known_from`` in the future.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from neo4j import Driver

from hmem import Memory
from hmem.errors import TemporalOrderError
from hmem.graph import catalog
from hmem.models import FactDraft, SupersedeTarget
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant

JAN = datetime(2023, 1, 1, tzinfo=UTC)
MAR = datetime(2023, 3, 1, tzinfo=UTC)
MAY = datetime(2023, 5, 1, tzinfo=UTC)
JUN = datetime(2023, 6, 1, tzinfo=UTC)
JUL = datetime(2023, 7, 1, tzinfo=UTC)


def _lena(memory: Memory, user_id: str) -> None:
    """The review's D8 repro: Rome (Jan), then Milan from May, learned in June."""
    memory.remember("Temporal Lena lives in Rome.", user_id=user_id, observed_at=JAN, fact_id="l0")
    memory.remember(
        "Temporal Lena lives in Milan.",
        user_id=user_id,
        observed_at=JUN,
        valid_from=MAY,
        supersedes=["l0"],
        fact_id="l1",
    )


def test_fact_list_statement_shows_each_fact_as_believed_then(
    driver: Driver, memory: Memory, user_id: str
) -> None:
    _lena(memory, user_id)
    stmt = catalog.statement("fact_list")
    params = {
        "user_id": user_id,
        "mode": "asof",
        "now": datetime.now(UTC),
        "as_of": MAR,
        "as_of_event": None,
        "believed_at": MAR,
        "skip": 0,
        "limit": 10,
    }
    records, _, _ = driver.execute_query(stmt.text, stmt.bind(params))
    [row] = [r["fact"] for r in records]
    assert row["id"] == "l0"
    assert (row["valid_to"], row["known_to"], row["close_reason"]) == (None, None, None)
    # believed in March: Rome with no end, so still true in July as believed then
    records, _, _ = driver.execute_query(stmt.text, stmt.bind({**params, "as_of_event": JUL}))
    assert [r["fact"]["id"] for r in records] == ["l0"]
    # as stored (export's 'all'): the close is there
    records, _, _ = driver.execute_query(
        stmt.text, stmt.bind({**params, "mode": "all", "as_of": None, "believed_at": None})
    )
    stored = {r["fact"]["id"]: r["fact"] for r in records}
    assert stored["l0"]["close_reason"] == "contradiction"
    assert stored["l0"]["known_to"] is not None


def test_store_views_hide_what_was_learned_later(memory: Memory, user_id: str) -> None:
    _lena(memory, user_id)
    [then] = memory.facts(user_id=user_id, as_of=MAR)
    assert (then.id, then.valid_to, then.known_to, then.close_reason) == ("l0", None, None, None)
    assert [f.id for f in memory.facts(user_id=user_id, as_of=MAR, as_of_event=JUL)] == ["l0"]
    assert [f.id for f in memory.facts(user_id=user_id, as_of=JUL, as_of_event=JUL)] == ["l1"]

    got = memory.get("l0", user_id=user_id, as_of=MAR)
    assert (got.valid_to, got.known_to, got.close_reason) == (None, None, None)
    closed = memory.get("l0", user_id=user_id)
    assert closed.close_reason == "contradiction" and closed.valid_to == MAY
    with pytest.raises(Exception, match="no fact"):
        memory.get("l1", user_id=user_id, as_of=MAR)  # not known yet

    early = memory.history("l0", user_id=user_id, as_of=MAR)
    assert early.successors == [] and early.fact.known_to is None
    late = memory.history("l0", user_id=user_id, as_of=JUL)
    assert [s.fact.id for s in late.successors] == ["l1"]
    assert late.fact.close_reason == "contradiction"
    with pytest.raises(Exception, match="no fact"):
        memory.history("l1", user_id=user_id, as_of=MAR)


def test_an_end_given_before_the_close_is_what_the_past_view_shows(
    memory: Memory, user_id: str
) -> None:
    end = datetime(2030, 1, 1, tzinfo=UTC)
    memory.remember_many(
        [FactDraft(id="c0", text="Temporal Carl rents a flat.", valid_from=JAN, valid_to=end)],
        user_id=user_id,
        observed_at=JAN,
    )
    memory.close("c0", user_id=user_id, at=MAY, observed_at=JUN)
    [then] = memory.facts(user_id=user_id, as_of=MAR)
    assert (then.valid_to, then.known_to, then.close_reason) == (end, None, None)
    assert memory.get("c0", user_id=user_id).valid_to == MAY


def test_a_supersession_cannot_predate_its_target(memory: Memory, user_id: str) -> None:
    later = datetime(2025, 1, 1, tzinfo=UTC)
    memory.remember(
        "Temporal Rita works at Acme.", user_id=user_id, observed_at=later, fact_id="r0"
    )
    with pytest.raises(TemporalOrderError, match="cannot close a fact first known"):
        memory.remember(
            "Temporal Rita works at Globex.",
            user_id=user_id,
            observed_at=datetime(2020, 1, 1, tzinfo=UTC),
            supersedes=["r0"],
            fact_id="r1",
        )
    stored = memory.get("r0", user_id=user_id)
    assert stored.known_to is None and stored.valid_to is None  # nothing was written
    assert [f.id for f in memory.facts(user_id=user_id, include_closed=True)] == ["r0"]
    # and the past never shows a fact before it was known
    assert memory.facts(user_id=user_id, as_of=datetime(2023, 3, 1, tzinfo=UTC)) == []


def test_a_successor_true_earlier_cannot_end_its_target(memory: Memory, user_id: str) -> None:
    """D9's related case: a successor true from 2020 superseding a fact true from
    2024-05-01 set the target's valid_to to its valid_from, silently "never true"."""
    started, earlier = datetime(2024, 5, 1, tzinfo=UTC), datetime(2020, 1, 1, tzinfo=UTC)
    learned = datetime(2025, 1, 1, tzinfo=UTC)
    memory.remember(
        "Temporal Wanda works at Acme.",
        user_id=user_id,
        observed_at=datetime(2024, 6, 1, tzinfo=UTC),
        valid_from=started,
        fact_id="w0",
    )
    with pytest.raises(TemporalOrderError, match="its end would come before its start"):
        memory.remember(
            "Temporal Wanda works at Globex.",
            user_id=user_id,
            observed_at=learned,
            valid_from=earlier,
            supersedes=["w0"],
            fact_id="w1",
        )
    stored = memory.get("w0", user_id=user_id)
    assert (stored.valid_to, stored.known_to) == (None, None)  # nothing was written
    world = datetime(2024, 7, 1, tzinfo=UTC)
    assert [f.id for f in memory.facts(user_id=user_id, as_of_event=world)] == ["w0"]
    assert [f.id for f in memory.facts(user_id=user_id, as_of=learned)] == ["w0"]

    # an inferred link (remember's infer) keeps both open, marked as conflicting
    draft = FactDraft(
        id="w1",
        text="Temporal Wanda works at Globex.",
        valid_from=earlier,
        supersedes=[SupersedeTarget(target_id="w0", inferred=True, cue="works at")],
    )
    written = memory.store.write(user_id, [draft], observed_at=learned)
    assert (written.added, written.superseded) == (["w1"], [])
    assert memory.get("w0", user_id=user_id).known_to is None
    after = learned + timedelta(days=1)
    assert {f.id for f in memory.facts(user_id=user_id, as_of=after)} == {"w0", "w1"}
    assert {f.id for f in memory.facts(user_id=user_id, as_of_event=world)} == {"w0", "w1"}
    assert ("w1", "w0") in memory.export(user_id).relations

    # a correction says so: w0 was never true (world time), believed until 2026 (belief)
    fixed = datetime(2026, 1, 1, tzinfo=UTC)
    memory.remember(
        "Temporal Wanda works at Initech.",
        user_id=user_id,
        observed_at=fixed,
        valid_from=earlier,
        supersedes=["w0"],
        reason="user_edit",
        fact_id="w2",
    )
    corrected = memory.get("w0", user_id=user_id)
    assert (corrected.valid_to, corrected.known_to) == (started, fixed)
    assert corrected.close_reason == "user_edit"
    assert "w0" in {f.id for f in memory.facts(user_id=user_id, as_of=learned)}
    assert "w0" not in {f.id for f in memory.facts(user_id=user_id, as_of_event=world)}
    assert "w0" not in {f.id for f in memory.facts(user_id=user_id, as_of=fixed)}


def test_default_view_and_as_of_now_agree_about_future_belief(memory: Memory, user_id: str) -> None:
    future = datetime.now(UTC) + timedelta(days=365 * 70)
    memory.remember_many(
        [FactDraft(id="fut", text="Temporal future known fact.", known_from=future)],
        user_id=user_id,
    )
    memory.remember("Temporal present fact.", user_id=user_id, fact_id="now")
    now = datetime.now(UTC)
    default = [f.id for f in memory.facts(user_id=user_id)]
    as_of_now = [f.id for f in memory.facts(user_id=user_id, as_of=now)]
    assert default == as_of_now == ["now"]
    assert "fut" in [f.id for f in memory.facts(user_id=user_id, include_closed=True)]
    found = memory.search("Temporal future known fact", user_id=user_id)
    assert "fut" not in [h.fact.id for h in found.hits]


# -- the same through HTTP ------------------------------------------------------------


@pytest.fixture
def acme(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "acme") as t:
        yield t


@pytest.fixture
def api(server: LiveServer, acme: Tenant) -> Iterator[httpx.Client]:
    """A client for one fresh user of ``acme``."""
    with httpx.Client(
        base_url=f"{server.url}/v1/users/{acme.user('temporal')}",
        headers={"Authorization": f"Bearer {acme.key}"},
        timeout=120,
    ) as client:
        yield client


def test_http_list_get_history_and_search_show_the_past_as_believed(
    api: httpx.Client,
) -> None:
    r = api.post(
        "/facts",
        json={"id": "l0", "text": "Temporal Lena lives in Rome.", "observed_at": JAN.isoformat()},
    )
    assert r.status_code == 201, r.text
    r = api.post(
        "/facts",
        json={
            "id": "l1",
            "text": "Temporal Lena lives in Milan.",
            "observed_at": JUN.isoformat(),
            "valid_from": MAY.isoformat(),
            "supersedes": ["l0"],
        },
    )
    assert r.status_code == 201, r.text
    march = {"as_of": MAR.isoformat()}

    [item] = api.get("/facts", params=march).json()["items"]
    assert item["id"] == "l0"
    assert (item["valid_to"], item["known_to"], item["close_reason"]) == (None, None, None)
    got = api.get("/facts/l0", params=march).json()
    assert (got["valid_to"], got["known_to"], got["close_reason"]) == (None, None, None)
    assert api.get("/facts/l1", params=march).status_code == 404
    assert api.get("/facts/l0/history", params=march).json()["successors"] == []

    found = api.post(
        "/search", json={"query": "Where does Lena live?", "as_of": MAR.isoformat()}
    ).json()
    hits = {h["fact"]["id"]: h for h in found["hits"]}
    assert list(hits) == ["l0"]
    assert hits["l0"]["fact"]["known_to"] is None and hits["l0"]["fact"]["valid_to"] is None
    assert hits["l0"]["successors"] == []
    assert "Milan" not in found["context"]
    # in July both are known: Milan replaced Rome
    found = api.post(
        "/search", json={"query": "Where does Lena live?", "as_of": JUL.isoformat()}
    ).json()
    assert [h["fact"]["id"] for h in found["hits"]][:1] == ["l1"]


def test_http_refuses_a_retroactive_supersession_and_hides_future_belief(
    api: httpx.Client,
) -> None:
    r = api.post(
        "/facts",
        json={
            "id": "r0",
            "text": "Temporal Rita works at Acme.",
            "observed_at": "2025-01-01T00:00:00Z",
        },
    )
    assert r.status_code == 201, r.text
    r = api.post(
        "/facts",
        json={
            "id": "r1",
            "text": "Temporal Rita works at Globex.",
            "observed_at": "2020-01-01T00:00:00Z",
            "supersedes": ["r0"],
        },
    )
    assert r.status_code == 422, r.text
    assert "cannot close a fact first known" in r.json()["detail"]
    assert api.get("/facts/r0").json()["known_to"] is None

    r = api.post(
        "/facts/batch",
        json={
            "facts": [
                {
                    "id": "fut",
                    "text": "Temporal future known fact.",
                    "known_from": "2099-01-01T00:00:00Z",
                }
            ]
        },
    )
    assert r.status_code == 201, r.text
    now = datetime.now(UTC).isoformat()
    default = [f["id"] for f in api.get("/facts").json()["items"]]
    as_of_now = [f["id"] for f in api.get("/facts", params={"as_of": now}).json()["items"]]
    assert default == as_of_now == ["r0"]
