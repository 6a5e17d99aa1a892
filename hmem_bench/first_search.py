"""The first search after start against the warm ones, over HTTP, on a running API.

``hmem bench first-search`` waits until ``/readyz`` answers 200 (the API warms the
embedder and the read statement before it says ready), then sends the same search
``1 + repeat`` times and reports the first one's wall time, the median of the others,
their ratio, and the first search's top hits with their score parts. Run it right after
``make demo`` (or ``hmem serve``) starts, before anything else searched.

The repeats are answered from the question-vector cache, the first is not: so it also
asks ``repeat`` questions new to the process (the same words, one more ``?`` each: the
same facts, a new embedding) and reports the first against their median too
(``ratio_vs_new``): a warm search of a question never asked before.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

__all__ = ["NEW_SHAPES", "measure", "measure_python", "wait_ready"]


def wait_ready(client: httpx.Client, timeout_s: float) -> float:
    """Poll ``/readyz`` until it answers 200; the seconds waited. TimeoutError after
    ``timeout_s`` (a server still starting refuses connections or answers 503)."""
    started = time.monotonic()
    while True:
        try:
            if client.get("/readyz").status_code == 200:
                return time.monotonic() - started
        except httpx.TransportError:
            pass
        if time.monotonic() - started > timeout_s:
            raise TimeoutError(f"/readyz did not answer 200 within {timeout_s:.0f} s")
        time.sleep(0.2)


def _unseen(query: str, n: int) -> list[str]:
    return [query + "?" * (i + 1) for i in range(n)]


def _top(hits: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    return [
        {
            "text": h["fact"]["text"],
            "score": round(h["score"], 3),
            "parts": {k: round(v, 3) for k, v in h["parts"].items()},
        }
        for h in hits[:n]
    ]


def measure(
    client: httpx.Client,
    *,
    user_id: str,
    query: str,
    repeat: int = 20,
    ready_timeout_s: float = 600.0,
    top: int = 3,
) -> dict[str, Any]:
    """Wait for readiness, then time ``1 + repeat`` identical searches (milliseconds)."""
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    waited = wait_ready(client, ready_timeout_s)
    times: list[float] = []
    first: dict[str, Any] = {}
    for i in range(1 + repeat):
        started = time.perf_counter()
        response = client.post(f"/v1/users/{user_id}/search", json={"query": query})
        times.append((time.perf_counter() - started) * 1000.0)
        response.raise_for_status()
        if i == 0:
            first = response.json()
    median = statistics.median(times[1:])
    unseen: list[float] = []
    for question in _unseen(query, repeat):
        started = time.perf_counter()
        client.post(f"/v1/users/{user_id}/search", json={"query": question}).raise_for_status()
        unseen.append((time.perf_counter() - started) * 1000.0)
    new_median = statistics.median(unseen)
    return {
        "query": query,
        "user_id": user_id,
        "waited_for_ready_s": round(waited, 1),
        "first_ms": round(times[0], 1),
        "median_next_ms": round(median, 1),
        "next": repeat,
        "ratio": round(times[0] / median, 2),
        "median_new_ms": round(new_median, 1),
        "ratio_vs_new": round(times[0] / new_median, 2),
        "dense": first.get("dense"),
        "first_timings": first.get("timings"),  # the server's own split of the first search
        "top": _top(first.get("hits", []), top),
    }


# Questions of the shapes that once cost a plan each in Neo4j (hmem.graph.catalog.VARYING):
# no content word, no words at all, a date span, many words, one name.
NEW_SHAPES = (
    "x y z w",
    "Who?",
    "What did Maya do in March 2024?",
    "a b c d e f g h i j k l",
    "Lisbon",
)


def measure_python(
    search: Callable[[str], Any],
    *,
    query: str,
    repeat: int = 20,
    shapes: Sequence[str] = NEW_SHAPES,
    shape_repeat: int = 5,
) -> dict[str, Any]:
    """The same in this process, right after ``Memory.warm_up``: the first ``search`` vs
    the median of the next ``repeat`` (and of ``repeat`` new questions), then each
    question of ``shapes`` (asked for the first time) vs the median of its next
    ``shape_repeat`` (milliseconds)."""

    def timed(question: str) -> float:
        started = time.perf_counter()
        search(question)
        return (time.perf_counter() - started) * 1000.0

    first = timed(query)
    median = statistics.median(timed(query) for _ in range(repeat))
    new_median = statistics.median(timed(q) for q in _unseen(query, repeat))
    out: dict[str, Any] = {
        "query": query,
        "first_ms": round(first, 1),
        "median_next_ms": round(median, 1),
        "ratio": round(first / median, 2),
        "median_new_ms": round(new_median, 1),
        "ratio_vs_new": round(first / new_median, 2),
        "new_shapes": [],
    }
    for question in shapes:
        once = timed(question)
        then = statistics.median(timed(question) for _ in range(shape_repeat))
        out["new_shapes"].append(
            {
                "query": question,
                "first_ms": round(once, 1),
                "median_next_ms": round(then, 1),
                "ratio": round(once / then, 2),
                "vs_familiar": round(once / median, 2),
            }
        )
    return out
