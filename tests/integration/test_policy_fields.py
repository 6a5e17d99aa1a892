"""Issue 32's write-policy repros against the real store (security review D3, D4, D6,
D11, D12, D14, D15), over HTTP where the review sent them, and the held-out corpus
(``hmem_bench.policy_heldout``) written through each row's own field: nothing of a
secret is stored (graph export, queue file and its WAL), few look-alikes are refused.

The model is the fake OpenAI-compatible server; for the review's model probes it
returns each ``FACT<...>`` of the prompt with ``~`` removed, as a model that normalises
what it hears would.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.server.mcpserver.exceptions import ToolError
from neo4j import Driver

from hmem import Config, Memory
from hmem.errors import HmemError, PolicyRefusal, TextTooLongError
from hmem.faces.client import Client
from hmem.faces.mcp_server import build_server
from hmem.models import EntityRef, FactDraft
from hmem_bench.policy_heldout import ORDINARY, SECRETS, Row
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server

GH = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
_FACT = re.compile(r"FACT<([^>]*)>")


def _normalising_model(body: dict[str, Any]) -> dict[str, Any]:
    """Each FACT<...> of the last prompt message as one fact, with '~' removed."""
    prompt = str(body["messages"][-1]["content"])
    facts = [
        {
            "text": text.replace("~", ""),
            "category": "semantic",
            "importance": 5,
            "event_date": None,
            "entities": [],
            "relations": [],
        }
        for text in _FACT.findall(prompt)
    ]
    return {"facts": facts}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def settings(
    config: Config, fake: FakeOpenAIServer, tmp_path_factory: pytest.TempPathFactory
) -> Config:
    return Config(
        **{
            **config.model_dump(),
            "llm_base_url": fake.base_url,
            "llm_api_key": FAKE_API_KEY,
            "embed_provider": "none",
            "queue_path": tmp_path_factory.mktemp("queue") / "queue.sqlite3",
        }
    )


@pytest.fixture(scope="module")
def server(settings: Config, memory: Memory) -> Iterator[LiveServer]:
    with live_server(settings) as running:
        yield running


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "pol") as t:
        yield t


@pytest.fixture
def modelled(settings: Config, driver: Driver, tmp_path: Path) -> Iterator[Memory]:
    """A Memory with the fake model and its own queue file (scanned by the tests)."""
    own = Config(**{**settings.model_dump(), "queue_path": tmp_path / "queue.sqlite3"})
    with Memory(own, driver=driver) as memory:
        yield memory


def _refused(answer: httpx.Response, field: str) -> None:
    assert answer.status_code == 422, answer.text
    problem = answer.json()
    assert problem["type"] == "urn:hmem:problem:policy-refusal", problem
    assert problem["kind"] == "credential" or problem["kind"] == "payment_card", problem
    assert field in problem["detail"], problem
    assert GH not in answer.text and "hunter2" not in answer.text and "4111" not in answer.text


def test_d3_every_field_of_the_review_is_refused_over_http(
    server: LiveServer, tenant: Tenant, memory: Memory, fake: FakeOpenAIServer
) -> None:
    pol = tenant.user("pol")
    card = "card 4111 1111 1111 1111"
    probes = [
        (
            "facts",
            {
                "text": "Pol entity carrier one.",
                "entities": [
                    "password AKIAIOSFODNN7EXAMPLE",
                    {"name": GH, "type": "credential", "aliases": [card]},
                ],
            },
            "entities[0].name",
        ),
        (
            "facts",
            {"text": "Pol alias.", "entities": [{"name": "Pol", "aliases": [card]}]},
            "aliases",
        ),
        (
            "facts",
            {"text": "Pol type.", "entities": [{"name": "Pol", "type": "AKIAIOSFODNN7EXAMPLE"}]},
            "type",
        ),
        (
            "facts",
            {"text": "Pol speaker carrier.", "speaker": f"my password is hunter2swordfish {GH}"},
            "speaker",
        ),
        ("facts", {"text": "Pol speaker key.", "speaker": "AKIAIOSFODNN7EXAMPLE"}, "speaker"),
        ("facts", {"text": "Pol source carrier.", "source": f"token {GH}"}, "source"),
        ("facts", {"text": "Pol id carrier.", "id": GH}, "id"),
        (
            "facts/batch",
            {"session_id": f"sess {GH} {card}", "facts": [{"text": "Pol batch carrier."}]},
            "session_id",
        ),
        (
            "facts/batch",
            {"facts": [{"text": "Pol batch.", "speaker": "AKIAIOSFODNN7EXAMPLE"}]},
            "facts[0].speaker",
        ),
        (
            "facts/batch",
            {
                "facts": [
                    {"text": "Pol ok."},
                    {
                        "text": "Pol batch.",
                        "entities": [
                            {
                                "name": "my password is hunter2swordfish",
                                "aliases": ["4111 1111 1111 1111"],
                            }
                        ],
                    },
                ]
            },
            "facts[1].entities[0].name",
        ),
        (
            "messages",
            {
                "messages": [{"role": "user", "content": "FACT<Pol likes tea>"}],
                "session_id": f"s {GH}",
            },
            "session_id",
        ),
        (
            "messages",
            {"messages": [{"role": "user", "content": "FACT<Pol likes tea>", "name": GH}]},
            "messages[0].name",
        ),
    ]
    headers = {"Authorization": f"Bearer {tenant.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=120) as http:
        for route, body, field in probes:
            _refused(http.post(f"/v1/users/{pol}/{route}", json=body), field)
        assert fake.chat_calls == 0  # a refused session never reaches the model
        # the profile was already checked; the export holds nothing of any probe
        _refused(http.put(f"/v1/users/{pol}/profile", json={"text": f"Pol. token {GH}"}), "")
        export = http.get(f"/v1/users/{pol}/export")
        assert export.status_code == 200
        assert export.json()["facts"] == [] and export.json()["episodes"] == []
        for secret in (GH, "AKIAIOSFODNN7EXAMPLE", "4111", "hunter2"):
            assert secret not in export.text
        # MCP remember goes through the same check (its entities, here)
        with Client(server.url, api_key=tenant.key) as client:
            mcp = build_server(client, user_id=pol)
            with pytest.raises(ToolError, match="PolicyRefusal"):
                asyncio.run(
                    mcp.call_tool(
                        "remember", {"text": "Pol has a token.", "entities": [f"token {GH}"]}
                    )
                )
        assert GH not in http.get(f"/v1/users/{pol}/export").text


def test_d4_facts_the_model_writes_out_are_checked(
    modelled: Memory, user_id: str, fake: FakeOpenAIServer
) -> None:
    fake.queue_chat(_normalising_model, _normalising_model)
    first = modelled.add(
        [{"role": "user", "content": f"FACT<Backup code g~{GH[1:]}> FACT<Polm likes green tea>"}],
        user_id=user_id,
    )
    assert f"g~{GH[1:]}" in json.dumps(fake.chat_requests)  # the user's words passed
    assert first.refused == ["credential"]
    assert len(first.added) == 1
    second = modelled.add(
        [{"role": "user", "content": "FACT<Server login A~KIAIOSFODNN7EXAMPLE>"}], user_id=user_id
    )
    assert (second.added, second.refused) == ([], ["credential"])
    assert [f.text for f in modelled.facts(user_id=user_id)] == ["Polm likes green tea"]
    # an entity name the model writes out is checked too
    fake.queue_chat(
        {
            "facts": [
                {
                    "text": "Polm uses a vault.",
                    "category": "semantic",
                    "importance": 5,
                    "event_date": None,
                    "entities": [{"name": GH, "type": "thing"}],
                    "relations": [],
                }
            ]
        }
    )
    third = modelled.add([{"role": "user", "content": "Polm uses a vault."}], user_id=user_id)
    assert (third.added, third.refused) == ([], ["credential"])
    stored = json.dumps(modelled.export(user_id).model_dump(mode="json"))
    assert GH not in stored and "AKIAIOSFODNN7EXAMPLE" not in stored


def test_d6_one_edge_per_pair_and_capped_lists(
    server: LiveServer, tenant: Tenant, memory: Memory, driver: Driver
) -> None:
    abuse = tenant.user("abuse")
    headers = {"Authorization": f"Bearer {tenant.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=120) as http:
        assert (
            http.post(
                f"/v1/users/{abuse}/facts", json={"text": "Abuse target.", "id": "tgt"}
            ).status_code
            == 201
        )
        huge = {
            "facts": [
                {"text": "Abuse many supersedes.", "supersedes": [{"target_id": "tgt"}] * 20_000}
            ]
        }
        answer = http.post(f"/v1/users/{abuse}/facts/batch", json=huge)
        assert answer.status_code in (413, 422), answer.text
        many = {
            "facts": [
                {
                    "text": "Abuse 64 copies of one target.",
                    "supersedes": [{"target_id": "tgt"}] * 64,
                    "relates": ["tgt"] * 64,
                }
            ]
        }
        done = http.post(f"/v1/users/{abuse}/facts/batch", json=many)
        assert done.status_code == 201, done.text
        assert done.json()["superseded"] == ["tgt"]
    with driver.session() as session:
        edges = session.run(
            "MATCH (n:Fact {user_id: $u})-[r:SUPERSEDES]->(o:Fact {user_id: $u, id: 'tgt'}) "
            "RETURN count(r) AS n",
            u=tenant.stored(abuse),
        ).single()
    assert edges is not None and edges["n"] == 1


def test_d12_length_is_checked_before_the_policy(
    server: LiveServer, tenant: Tenant, memory: Memory
) -> None:
    """A text over max_fact_chars that also holds a secret is refused for its length:
    the length test ran first (the policy scan is the per-character work)."""
    long = "word " * 5_000 + "My password is hunter2swordfish."
    with pytest.raises(TextTooLongError):
        memory.remember(long, user_id=tenant.stored(tenant.user("len")))
    with pytest.raises(TextTooLongError):
        memory.remember_many([FactDraft(text=long)], user_id=tenant.stored(tenant.user("len")))
    headers = {"Authorization": f"Bearer {tenant.key}"}
    answer = httpx.post(
        f"{server.url}/v1/users/{tenant.user('len')}/facts",
        json={"text": long},
        headers=headers,
        timeout=120,
    )
    assert answer.status_code == 422
    assert answer.json()["error"] == "TextTooLongError"


def test_d14_a_secret_id_never_reaches_the_audit(
    server: LiveServer, tenant: Tenant, memory: Memory
) -> None:
    """Caller ids are checked by the policy (not narrowed to one opaque shape: imports
    bring their own ids), so an id that is a key is refused and never audited."""
    user = tenant.user("ids")
    headers = {"Authorization": f"Bearer {tenant.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=120) as http:
        for secret_id in (GH, "AKIAIOSFODNN7EXAMPLE", "4111111111111111", "078-05-1120"):
            _refused_id = http.post(
                f"/v1/users/{user}/facts", json={"text": "Ids.", "id": secret_id}
            )
            assert _refused_id.status_code == 422, _refused_id.text
            assert _refused_id.json()["detail"].startswith("id: refused")
            assert secret_id not in _refused_id.text
        fine = http.post(
            f"/v1/users/{user}/facts", json={"text": "Ids fine.", "id": "fact-2024-0001"}
        )
        assert fine.status_code == 201
        audit = http.get(f"/v1/users/{user}/audit").text
        assert "fact-2024-0001" in audit
        assert GH not in audit and "AKIA" not in audit and "4111" not in audit
        # the review's repro: once the fact is erased, no event names its id any more
        assert http.delete(f"/v1/users/{user}/facts/fact-2024-0001").status_code == 200
        audit = http.get(f"/v1/users/{user}/audit").json()["items"]
        assert "fact-2024-0001" not in str(audit)
        assert {e["op"] for e in audit} == {"write", "erase_fact"}


def test_d15_headers_and_no_echo(server: LiveServer, tenant: Tenant, memory: Memory) -> None:
    user = tenant.user("hdr")
    headers = {"Authorization": f"Bearer {tenant.key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=120) as http:
        answers = [
            http.post(f"/v1/users/{user}/facts", json={"text": "Hdr likes jazz.", "id": "dupid"}),
            http.get(f"/v1/users/{user}/facts"),
            http.get(f"/v1/users/{user}/export"),
            http.post(f"/v1/users/{user}/search", json={"query": "jazz"}),
            http.get(f"/v1/users/{user}/facts/f-iso-1"),
            http.post(f"/v1/users/{user}/facts", json={"text": "Hdr again.", "id": "dupid"}),
            http.post(f"/v1/users/{user}/facts/zqxmissing/close", json={}),
            httpx.get(
                f"{server.url}/v1/users/bob/facts",
                headers={"Authorization": f"Bearer {tenant.key_for('alice')}"},
            ),
        ]
        for answer in answers:
            assert answer.headers["cache-control"] == "no-store", answer.request.url
            assert answer.headers["x-content-type-options"] == "nosniff"
        assert [a.status_code for a in answers[4:]] == [404, 409, 404, 403]
        for answer, echoed in zip(
            answers[4:], ("f-iso-1", "dupid", "zqxmissing", "'bob'"), strict=True
        ):
            assert echoed not in answer.text, answer.text
            assert "[withheld]" in answer.json()["detail"]


# -- the held-out corpus through the real store --------------------------------------------


def _write(memory: Memory, row: Row, user_id: str, n: int, fake: FakeOpenAIServer) -> None:
    """Send one row through its own field (``n`` keeps the carriers' texts apart). The
    direct writes do not infer: the fake model's replies are for the model path."""
    carrier = f"Heldout carrier number {n} likes tea."
    field, value = row.field, row.value
    if field == "text":
        memory.remember(value, user_id=user_id, infer=False)
    elif field == "entity.name":
        memory.remember(carrier, user_id=user_id, entities=[value], infer=False)
    elif field == "entity.alias":
        memory.remember(
            carrier,
            user_id=user_id,
            entities=[EntityRef(name=f"carrier {n}", aliases=[value])],
            infer=False,
        )
    elif field == "entity.type":
        memory.remember(
            carrier,
            user_id=user_id,
            entities=[EntityRef(name=f"carrier {n}", type=value)],
            infer=False,
        )
    elif field == "speaker":
        memory.remember(carrier, user_id=user_id, speaker=value, infer=False)
    elif field == "source":
        memory.remember(carrier, user_id=user_id, source=value, infer=False)
    elif field == "id":
        memory.remember(carrier, user_id=user_id, fact_id=value, infer=False)
    elif field == "session_id":
        memory.remember_many([FactDraft(text=carrier)], user_id=user_id, session_id=value)
    elif field == "idempotency_key":
        memory.add(carrier, user_id=user_id, idempotency_key=value, background=True)
    elif field == "message.name":
        memory.add(
            [{"role": "user", "content": carrier, "name": value}], user_id=user_id, background=True
        )
    elif field == "profile":
        memory.set_profile(value, user_id=user_id)
    else:
        assert field == "model"
        _MODEL_ROWS[n] = value
        result = memory.add(f"FACT<row {n}>", user_id=user_id)
        if result.refused:
            raise PolicyRefusal(result.refused[0])


_MODEL_ROWS: dict[int, str] = {}
_ROW = re.compile(r"FACT<row (\d+)>")


def _model_of_rows(body: dict[str, Any]) -> dict[str, Any]:
    """The fact a model writes out for ``FACT<row n>``: held-out row n's value as it
    is (the user's words named only the row); a session without one yields nothing."""
    prompt = str(body["messages"][-1]["content"])
    return {
        "facts": [
            {
                "text": _MODEL_ROWS[int(n)],
                "category": "semantic",
                "importance": 5,
                "event_date": None,
                "entities": [],
                "relations": [],
            }
            for n in _ROW.findall(prompt)
        ]
    }


def _at_rest(memory: Memory, user_id: str, queue: Path) -> str:
    """Everything stored for the user, and the queue file with its WAL, as text."""
    stored = json.dumps(memory.export(user_id).model_dump(mode="json"), ensure_ascii=False)
    raw = b"".join(p.read_bytes() for p in queue.parent.glob(queue.name + "*"))
    return stored + raw.decode("utf-8", "replace")


def test_heldout_corpus_through_every_field_stores_no_secret(
    modelled: Memory, user_id: str, other_user: str, fake: FakeOpenAIServer
) -> None:
    queue = modelled.config.queue_path
    fake.clear_chat()
    fake.queue_chat(*[_model_of_rows] * 100)
    refusals: list[str] = []
    for n, row in enumerate(SECRETS):
        try:
            _write(modelled, row, user_id, n, fake)
        except HmemError as exc:
            refusals.append(type(exc).__name__)
    _MODEL_ROWS.clear()
    over: list[Row] = []
    for n, row in enumerate(ORDINARY):
        try:
            _write(modelled, row, other_user, n, fake)
        except PolicyRefusal:
            over.append(row)
    rest = _at_rest(modelled, user_id, queue)
    stored = [r for r in SECRETS if r.secret in rest or json.dumps(r.secret)[1:-1] in rest]
    print(
        f"held-out end to end: {len(stored)}/{len(SECRETS)} secrets stored, "
        f"{len(over)}/{len(ORDINARY)} look-alikes refused"
    )
    assert stored == []
    assert set(refusals) == {"PolicyRefusal"}
    assert len(over) / len(ORDINARY) <= 0.02, over
    kept = json.dumps(modelled.export(other_user).model_dump(mode="json"), ensure_ascii=False)
    assert "I changed my password yesterday." in kept
    fake.clear_chat()
