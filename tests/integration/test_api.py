"""The HTTP API end to end: real uvicorn on 127.0.0.1, real Neo4j, real keys."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from hmem import Memory
from tests.integration.test_api_fixtures import LiveServer, Tenant


def _http(server: LiveServer, key: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=120)


def iso(y: int, m: int, d: int) -> str:
    return datetime(y, m, d, 9, tzinfo=UTC).isoformat()


def test_maya_story_over_http_then_erase_leaves_nothing(
    server: LiveServer, tenant: Tenant, memory: Memory
) -> None:
    maya = tenant.user("maya")
    with _http(server, tenant.key) as http:
        london = http.post(
            f"/v1/users/{maya}/facts",
            json={
                "text": "Maya lives in London.",
                "observed_at": iso(2025, 1, 14),
                "valid_from": iso(2019, 9, 1),
                "entities": ["Maya", {"name": "London", "type": "place"}],
            },
        )
        assert london.status_code == 201, london.text
        london_id = london.json()["added"][0]
        veg = http.post(
            f"/v1/users/{maya}/facts",
            json={"text": "Maya is vegetarian.", "observed_at": iso(2025, 1, 14)},
        )
        assert veg.status_code == 201
        paris = http.post(
            f"/v1/users/{maya}/facts",
            json={
                "text": "Maya moved from London to Paris in March 2026.",
                "observed_at": iso(2026, 3, 2),
                "valid_from": iso(2026, 3, 1),
                "entities": ["Maya", "London", "Paris"],
                "supersedes": [london_id],
            },
        ).json()
        assert paris["superseded"] == [london_id]
        paris_id = paris["added"][0]
        # said again: an exact duplicate is skipped
        again = http.post(f"/v1/users/{maya}/facts", json={"text": "Maya is vegetarian."})
        assert again.json()["skipped"] == 1 and again.json()["added"] == []

        now = http.get(f"/v1/users/{maya}/facts").json()
        assert {f["text"] for f in now["items"]} == {
            "Maya is vegetarian.",
            "Maya moved from London to Paris in March 2026.",
        }
        assert all(f["user_id"] == maya for f in now["items"])  # the caller's name, not ours
        assert now["next_offset"] is None

        then = http.get(
            f"/v1/users/{maya}/facts", params={"as_of_event": "2026-02-01T00:00:00Z"}
        ).json()
        assert "Maya lives in London." in {f["text"] for f in then["items"]}
        believed = http.get(
            f"/v1/users/{maya}/facts", params={"as_of": "2026-03-01T00:00:00+00:00"}
        ).json()
        assert "Maya lives in London." in {f["text"] for f in believed["items"]}

        page = http.get(f"/v1/users/{maya}/facts", params={"include_closed": True, "limit": 2})
        assert page.json()["next_offset"] == 2

        chain = http.get(f"/v1/users/{maya}/facts/{paris_id}/history").json()
        assert chain["predecessors"][0]["fact"]["text"] == "Maya lives in London."
        assert chain["predecessors"][0]["link"]["reason"] == "contradiction"

        # undo the move, then close it again as a mistake
        restored = http.post(f"/v1/users/{maya}/facts/{london_id}/restore")
        assert restored.status_code == 200 and restored.json()["known_to"] is None
        closed = http.post(
            f"/v1/users/{maya}/facts/{london_id}/close", json={"reason": "user_edit"}
        )
        assert closed.json()["close_reason"] == "user_edit"
        twice = http.post(f"/v1/users/{maya}/facts/{london_id}/close", json={})
        assert twice.status_code == 409
        assert twice.headers["content-type"] == "application/problem+json"
        assert twice.json()["error"] == "ConflictError"

        one = http.get(f"/v1/users/{maya}/facts/{paris_id}").json()
        assert one["entities"] == ["London", "Maya", "Paris"]

        audit = http.get(f"/v1/users/{maya}/audit").json()["items"]
        assert {"write", "restore", "close"} <= {e["op"] for e in audit}
        assert "London" not in str(audit)  # ids and ops, never text

        export = http.get(f"/v1/users/{maya}/export").json()
        assert export["user_id"] == maya and len(export["facts"]) == 3

        gone = http.delete(f"/v1/users/{maya}/facts/{paris_id}")
        assert gone.json()["erased"]["facts"] == 1
        assert http.get(f"/v1/users/{maya}/facts/{paris_id}").status_code == 404

        erased = http.delete(f"/v1/users/{maya}")
        assert erased.status_code == 200 and erased.json()["erased"]["facts"] == 2
        counts = memory.store.counts(tenant.stored(maya))
        assert not any(counts.values()), counts  # nothing remains: facts, vectors, audit...
        assert http.get(f"/v1/users/{maya}/export").json()["facts"] == []
        assert http.get(f"/v1/users/{maya}/audit").json()["items"] == []
