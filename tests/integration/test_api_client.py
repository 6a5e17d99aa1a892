"""``hmem.Client`` / ``AsyncClient`` against a live server, the MCP tools, ops routes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from hmem import AsyncClient, Client, ConflictError, Memory, NotFoundError, PolicyRefusal
from hmem.errors import ModelNotConfiguredError
from hmem.faces.client import ApiUnavailableError, AuthenticationError, PermissionDeniedError
from hmem.faces.mcp_server import build_server
from hmem.models import FactDraft, SupersedeTarget
from tests.integration.test_api_fixtures import LiveServer, Tenant


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def test_client_has_memorys_surface_and_errors(server: LiveServer, tenant: Tenant) -> None:
    maya = tenant.user("maya")
    with Client(server.url, api_key=tenant.key) as client:
        london = client.remember(
            "Maya lives in London.", user_id=maya, observed_at=day(2025, 1, 14),
            entities=["Maya", "London"],
        )  # fmt: skip
        paris = client.remember(
            "Maya moved from London to Paris in March 2026.", user_id=maya,
            observed_at=day(2026, 3, 2), valid_from=day(2026, 3, 1), supersedes=london.added,
        )  # fmt: skip
        [now] = client.facts(user_id=maya)
        [then] = client.facts(user_id=maya, as_of_event=day(2026, 2, 1))
        assert (now.text, then.text) == (
            "Maya moved from London to Paris in March 2026.",
            "Maya lives in London.",
        )
        assert now.user_id == maya
        chain = client.history(paris.added[0], user_id=maya)
        assert chain.predecessors[0].fact.id == london.added[0]
        assert client.get(london.added[0], user_id=maya).close_reason == "contradiction"
        with pytest.raises(ConflictError):
            client.close(london.added[0], user_id=maya)
        assert client.restore(london.added[0], user_id=maya).known_to is None
        assert client.close(london.added[0], user_id=maya).close_reason == "retraction"
        with pytest.raises(NotFoundError):
            client.get("no-such-fact", user_id=maya)
        with pytest.raises(PolicyRefusal) as refused:
            client.remember("My password is hunter2-Blue-77!", user_id=maya)
        assert refused.value.kind == "credential"
        assert len(client.export(maya).facts) == 2
        assert client.audit(user_id=maya)[0]["op"] == "close"
        assert client.erase(paris.added[0], user_id=maya)["facts"] == 1
        assert client.erase_user(maya)["facts"] == 1
        assert client.health()["status"] == "ok"
        assert client.me()["tenant"] == tenant.name
        assert client.profile(user_id=maya) is None
        client.set_profile("Maya lives in Paris and is vegetarian.", user_id=maya)
        assert client.profile(user_id=maya)["text"].startswith("Maya lives in Paris")  # type: ignore[index]
        with pytest.raises(PolicyRefusal):
            client.set_profile("My password is hunter2-Blue-77!", user_id=maya)
        client.erase_user(maya)
        assert client.profile(user_id=maya) is None  # erasure takes the profile too
    with (
        Client(server.url, api_key="hmem_000000000000_" + "z" * 43) as bad,
        pytest.raises(AuthenticationError),
    ):
        bad.facts(user_id=maya)
    with (
        Client(server.url, api_key=tenant.key_for("someone-else")) as narrow,
        pytest.raises(PermissionDeniedError),
    ):
        narrow.facts(user_id=maya)
    with (
        Client("http://127.0.0.1:9", api_key=tenant.key, timeout=2) as down,
        pytest.raises(ApiUnavailableError),
    ):
        down.health()


def test_async_client(server: LiveServer, tenant: Tenant) -> None:
    bob = tenant.user("bob")

    async def story() -> None:
        async with AsyncClient(server.url, api_key=tenant.key) as client:
            first = await client.remember("Bob plays the cello.", user_id=bob)
            results = await asyncio.gather(
                *(client.remember(f"Bob visited city number {i}.", user_id=bob) for i in range(5))
            )
            assert all(r.added for r in results)
            assert len(await client.facts(user_id=bob)) == 6
            assert (await client.get(first.added[0], user_id=bob)).text == "Bob plays the cello."
            with pytest.raises(NotFoundError):
                await client.history("nope", user_id=bob)
            assert (await client.erase_user(bob))["facts"] == 6

    asyncio.run(story())


def test_a_batch_of_facts_is_one_write(server: LiveServer, tenant: Tenant) -> None:
    """``remember_many`` / ``import_facts`` over HTTP (``POST .../facts/batch``): one
    transaction per batch, a session's turns, each target's own reason; a refused text
    names its place and writes nothing; a bad batch is a 422."""
    lee = tenant.user("lee")
    said = day(2025, 5, 1)
    with Client(server.url, api_key=tenant.key) as client:
        first = client.remember_many(
            [
                FactDraft(text="Lee lives in Oslo.", id="oslo", turn=0),
                FactDraft(text="Lee works as a nurse.", id="nurse", turn=1),
            ],
            user_id=lee, observed_at=said, session_id="chat-1",
        )  # fmt: skip
        assert first.added == ["oslo", "nurse"]
        assert {f.known_from for f in client.facts(user_id=lee)} == {said}
        moved = client.remember(
            "Lee moved to Bergen and became a teacher.", user_id=lee,
            supersedes=["oslo", SupersedeTarget(target_id="nurse", reason="refinement")],
        )  # fmt: skip
        assert sorted(moved.superseded) == ["nurse", "oslo"]
        assert client.get("nurse", user_id=lee).close_reason == "refinement"
        assert client.get("oslo", user_id=lee).close_reason == "contradiction"
        secret = FactDraft(text="My password is hunter2-Blue-77!")
        with pytest.raises(PolicyRefusal, match="fact 1") as refused:
            client.remember_many([FactDraft(text="Lee likes tea."), secret], user_id=lee)
        assert refused.value.kind == "credential"
        history = [FactDraft(text=f"Lee ran {n} km.", id=f"run-{n}") for n in range(5)]
        history.append(
            FactDraft(text="Lee ran 6 km.", supersedes=[SupersedeTarget(target_id="run-4")])
        )
        imported = client.import_facts(history, user_id=lee, batch_size=2)
        assert (len(imported.added), imported.superseded) == (6, ["run-4"])
        assert len(client.facts(user_id=lee)) == 1 + 5
    with httpx.Client(base_url=server.url, timeout=30) as http:
        auth = {"Authorization": f"Bearer {tenant.key}"}
        for body in (
            {"facts": []},
            {"facts": [{"text": "naive", "known_from": "2025-01-01T00:00:00"}]},
            {"facts": [{"text": "x"}] * 2001},
            {"facts": [{"text": "x", "unknown": 1}]},
        ):
            answer = http.post(f"/v1/users/{lee}/facts/batch", json=body, headers=auth)
            assert answer.status_code == 422, (body, answer.text)
    with Client(server.url, api_key=tenant.key) as client:
        assert len(client.facts(user_id=lee)) == 6

    async def story() -> None:
        async with AsyncClient(server.url, api_key=tenant.key) as client:
            done = await client.remember_many([FactDraft(text="Lee sings.")], user_id=lee)
            assert (await client.get(done.added[0], user_id=lee)).text == "Lee sings."
            assert (await client.import_facts([], user_id=lee)).added == []

    asyncio.run(story())


def test_a_search_reads_dates_by_the_given_now(server: LiveServer, tenant: Tenant) -> None:
    """``now`` reaches the server: "yesterday" is the day before it, not before the
    server's clock."""
    kim = tenant.user("kim")
    with Client(server.url, api_key=tenant.key) as client:
        client.remember("Kim finished a marathon.", user_id=kim, valid_from=day(2024, 3, 9))
        found = client.search(
            "Which marathon did Kim finish yesterday?", user_id=kim, now=day(2024, 3, 10)
        )
        assert "time named: facts that began 2024-03-08 .. 2024-03-11" in found.notes
        assert found.hits[0].parts["time"] > 0


def test_a_turns_speaker_round_trips(server: LiveServer, tenant: Tenant) -> None:
    ana = tenant.user("ana")
    with Client(server.url, api_key=tenant.key) as client:
        said = client.remember("I painted the lake today.", user_id=ana, speaker=" Caroline ")
        plain = client.remember("The lake froze over.", user_id=ana, speaker="  ")
        assert client.get(said.added[0], user_id=ana).speaker == "caroline"
        assert client.get(plain.added[0], user_id=ana).speaker is None  # blank: none
        assert {f.speaker for f in client.export(ana).facts} == {"caroline", None}
        [hit] = [h for h in client.search("What did Caroline paint?", user_id=ana).hits
                 if h.fact.id == said.added[0]]  # fmt: skip
        assert hit.fact.speaker == "caroline" and hit.parts["speaker"] > 0
    with httpx.Client(base_url=server.url, timeout=30) as http:
        refused = http.post(
            f"/v1/users/{ana}/facts",
            json={"text": "Hello there.", "speaker": "x" * 201},
            headers={"Authorization": f"Bearer {tenant.key}"},
        )
        assert refused.status_code == 422

    async def story() -> None:
        async with AsyncClient(server.url, api_key=tenant.key) as client:
            said = await client.remember("We went camping.", user_id=ana, speaker="MELANIE")
            assert (await client.get(said.added[0], user_id=ana)).speaker == "melanie"

    asyncio.run(story())


def test_mcp_tools_over_the_client(server: LiveServer, tenant: Tenant) -> None:
    sam = tenant.user("sam")
    with Client(server.url, api_key=tenant.key) as client:
        mcp = build_server(client, user_id=sam)

        def call(name: str, **args: object) -> str:
            result = asyncio.run(mcp.call_tool(name, dict(args)))
            return "\n".join(c.text for c in result.content)  # type: ignore[union-attr]

        tools = {t.name for t in asyncio.run(mcp.list_tools())}
        assert tools == {"remember", "recall", "history", "forget"}
        assert call("recall") == "Nothing is remembered about that yet."
        first = call("remember", text="Sam lives in Oslo.", entities=["Sam", "Oslo"])
        oslo = first.split()[2].rstrip(".")
        call("remember", text="Sam has a dog called Rex.")
        moved = call("remember", text="Sam moved from Oslo to Bergen in 2026.", supersedes=[oslo])
        assert f"replaces {oslo}" in moved
        recalled = call("recall", query="Where does Sam live? Bergen?")
        assert "Oslo to Bergen" in recalled.splitlines()[0]
        bergen = recalled.splitlines()[0][1:].split("]")[0]
        assert "before: [" in call("history", fact_id=bergen)
        assert "closed (retraction)" in call("forget", fact_id=bergen)
        assert "Bergen" not in call("recall")
        with pytest.raises(ToolError, match="NotFoundError"):
            call("forget", fact_id="nope")
        with pytest.raises(ToolError, match="PolicyRefusal"):
            call("remember", text="My password is hunter2-Blue-77!")


def test_health_readiness_docs_metrics(server: LiveServer, tenant: Tenant) -> None:
    with httpx.Client(base_url=server.url, timeout=120) as http:
        assert http.get("/healthz").json()["status"] == "ok"
        ready = http.get("/readyz")
        assert ready.status_code == 200, ready.text
        body = ready.json()
        assert (body["status"], body["checks"]) == ("ready", {"neo4j": "ok", "schema": "ok"})
        # the suite's server has no models: both capabilities off, naming what to set
        assert body["capabilities"]["extraction"].startswith("off: ")
        assert "HMEM_LLM_BASE_URL" in body["capabilities"]["extraction"]
        assert "HMEM_EMBED_MODEL_DIR" in body["capabilities"]["dense_embeddings"]
        spec = http.get("/openapi.json").json()
        assert "/v1/users/{user_id}/facts" in spec["paths"]
        assert "HTTPBearer" in spec["components"]["securitySchemes"]
        assert http.get("/docs").status_code == 200
        bob = tenant.user("bob")
        auth = {"Authorization": f"Bearer {tenant.key}"}
        a = http.post(f"/v1/users/{bob}/facts", headers=auth, json={"text": "Bob likes tea."})
        b = http.post(
            f"/v1/users/{bob}/facts",
            headers=auth,
            json={"text": "Bob likes coffee now.", "supersedes": a.json()["added"]},
        )
        http.post(f"/v1/users/{bob}/facts/{a.json()['added'][0]}/restore", headers=auth)
        c = http.post(f"/v1/users/{bob}/facts", headers=auth, json={"text": "Bob drinks tea."})
        http.post(
            f"/v1/users/{bob}/facts",
            headers=auth,
            json={"text": "Bob drinks green tea.", "reason": "refinement",
                  "supersedes": c.json()["added"]},
        )  # fmt: skip
        d = http.post(f"/v1/users/{bob}/facts", headers=auth, json={"text": "Bob is 40."})
        http.post(
            f"/v1/users/{bob}/facts/batch",
            headers=auth,
            json={"facts": [{"text": "Bob is 41.", "supersedes": [
                {"target_id": d.json()["added"][0], "reason": "user_edit"}]}]},
        )  # fmt: skip
        http.post(
            f"/v1/users/{bob}/facts",
            headers=auth,
            json={"text": "PIN is 4821, card 4111 1111 1111 1111"},
        )
        http.get(f"/v1/users/{bob}/facts", headers=auth)
        http.delete(f"/v1/users/{bob}/facts/{b.json()['added'][0]}", headers=auth)
        http.delete(f"/v1/users/{bob}", headers=auth)
        metrics = http.get("/metrics").text
    for dial in (
        'hmem_write_ops_total{op="added"}',
        'hmem_write_ops_total{op="superseded"}',
        "hmem_memories_per_user{stat=",
        "hmem_vector_index_users ",
        "hmem_policy_refusals_total{kind=",
        'hmem_supersessions_total{reason="contradiction"}',
        'hmem_supersessions_total{reason="refinement"}',
        'hmem_supersessions_total{reason="user_edit"}',
        'hmem_write_requests_total{path="remember_many"}',
        "hmem_extraction_duration_seconds",
        'hmem_read_duration_seconds_count{op="list"}',
        'hmem_corrections_total{kind="restore"}',
        'hmem_erasure_duration_seconds_count{scope="user"}',
        'hmem_http_requests_total{method="POST",route="/v1/users/{user_id}/facts",status="201"}',
    ):
        assert dial in metrics, dial
    assert bob not in metrics and tenant.name not in metrics


def test_no_model_configured_is_a_clear_501(
    server: LiveServer, tenant: Tenant, memory: Memory
) -> None:
    """POST /messages (and Memory.add) with no language model: a 501 problem naming the
    variables to set, never a 500; nothing is queued."""
    bob = tenant.user("bob")
    with httpx.Client(base_url=server.url, timeout=30) as http:
        answer = http.post(
            f"/v1/users/{bob}/messages",
            headers={"Authorization": f"Bearer {tenant.key}"},
            json={"messages": [{"role": "user", "content": "I moved to Oslo."}]},
        )
    assert answer.status_code == 501, answer.text
    problem = answer.json()
    assert problem["type"] == "urn:hmem:problem:model-not-configured"
    assert problem["error"] == "ModelNotConfiguredError"
    for variable in ("HMEM_LLM_BASE_URL", "HMEM_LLM_MODEL", "HMEM_LLM_API_KEY"):
        assert variable in problem["detail"]
    with pytest.raises(ModelNotConfiguredError, match="HMEM_LLM_BASE_URL"):
        memory.add([{"role": "user", "content": "I moved to Oslo."}], user_id=bob)
