"""``hmem bench first-search``: waits for /readyz, then first search vs the median."""

from __future__ import annotations

import httpx
import pytest

from hmem_bench.first_search import measure


def _hit(text: str, dense: float) -> dict[str, object]:
    return {"fact": {"text": text}, "score": dense + 0.1, "parts": {"dense": dense, "entity": 0.1}}


def test_waits_for_ready_then_reports_first_median_and_top_hits() -> None:
    seen: list[str] = []
    ready_after = 2  # two 503s, then ready

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.url.path == "/readyz":
            ready = sum(s == "GET /readyz" for s in seen) > ready_after
            return httpx.Response(200 if ready else 503)
        assert request.headers["authorization"] == "Bearer k"
        hits = [_hit("Maya has a cat named Miso.", 0.44), _hit("Maya is vegetarian.", 0.41)]
        return httpx.Response(200, json={"dense": True, "hits": hits})

    transport = httpx.MockTransport(handler)
    with httpx.Client(
        base_url="http://api", transport=transport, headers={"Authorization": "Bearer k"}
    ) as client:
        result = measure(client, user_id="maya", query="What pets does Maya have?", repeat=4)

    assert seen[:3] == ["GET /readyz"] * 3
    # no search before ready; the first, 4 repeats, then 4 questions new to the server
    assert seen[3:] == ["POST /v1/users/maya/search"] * 9
    assert result["next"] == 4
    assert result["first_ms"] > 0 and result["median_next_ms"] > 0
    assert result["ratio"] > 0 and result["ratio_vs_new"] > 0
    assert result["dense"] is True
    assert [t["text"] for t in result["top"]] == [
        "Maya has a cat named Miso.",
        "Maya is vegetarian.",
    ]
    assert result["top"][0]["parts"]["dense"] == 0.44


def test_a_server_that_never_gets_ready_times_out() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(503))
    with (
        httpx.Client(base_url="http://api", transport=transport) as client,
        pytest.raises(TimeoutError, match="readyz"),
    ):
        measure(client, user_id="maya", query="q", ready_timeout_s=0.0)


def test_repeat_must_be_positive() -> None:
    with httpx.Client(base_url="http://api") as client, pytest.raises(ValueError, match="repeat"):
        measure(client, user_id="maya", query="q", repeat=0)


def test_measure_python_times_the_first_search_and_each_new_shape() -> None:
    from hmem_bench.first_search import measure_python

    asked: list[str] = []
    out = measure_python(asked.append, query="q", repeat=3, shapes=("a", "b"), shape_repeat=2)
    assert asked == ["q"] * 4 + ["q?", "q??", "q???"] + ["a"] * 3 + ["b"] * 3
    assert [s["query"] for s in out["new_shapes"]] == ["a", "b"]
    assert out["first_ms"] >= 0 and out["ratio"] >= 0
