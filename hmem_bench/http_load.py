"""HTTP ``/search`` against ``Memory.search`` on the same store, and under load.

``hmem bench http`` (issue 36's serving goals), on a running API and its Neo4j:

1. ``search()``: the same questions through a ``Memory`` of this process (the API's
   stored user id, ``tenant:user``), one at a time: p50 / p95.
2. HTTP ``/search`` one at a time over one keep-alive connection: p50 / p95, and its
   p50 minus ``search()``'s (the goal: at most 3 ms).
3. ``clients`` concurrent callers on loopback for ``seconds``: requests per second,
   p50 / p95 (the goal: 150 req/s, p95 at most 100 ms with 16).

The questions cycle through ``QUESTIONS`` (the Maya demo's; any user works), so an
embedding cache sees repeats as a real agent's would not: compare runs of one code base
with each other, not with a cold workload. The client runs on the same cores as the
server: its own cost (an asyncio loop with httpx) is part of every figure.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

__all__ = ["QUESTIONS", "concurrent", "cpu_seconds", "measure", "one_at_a_time"]

QUESTIONS = (
    "What pets does Maya have?",
    "Where does Maya live?",
    "Where did Maya work before?",
    "What does Maya do for a living?",
    "Who is Maya's partner?",
    "What did Maya do last summer?",
    "Does Maya like running?",
    "What is Maya allergic to?",
    "Which city did Maya move to?",
    "What are Maya's hobbies?",
    "When is Maya's birthday?",
    "What did Maya study?",
)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``). On a
    shared machine a process's CPU per request is the figure load does not change."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _summary(times_ms: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(times_ms),
        "p50_ms": round(statistics.median(times_ms), 2),
        "p95_ms": round(_pct(times_ms, 0.95), 2),
    }


def one_at_a_time(call: Callable[[str], Any], questions: Sequence[str], n: int) -> list[float]:
    """``call(question)`` ``n`` times in turn, questions cycled; milliseconds each."""
    times = []
    for i in range(n):
        started = time.perf_counter()
        call(questions[i % len(questions)])
        times.append((time.perf_counter() - started) * 1000)
    return times


async def _load(
    url: str, headers: dict[str, str], path: str, questions: Sequence[str], clients: int,
    seconds: float,
) -> tuple[list[float], int, float]:  # fmt: skip
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    times: list[float] = []
    errors = 0
    async with httpx.AsyncClient(
        base_url=url, headers=headers, limits=limits, timeout=60.0
    ) as client:

        async def caller(start: int, until: float) -> None:
            nonlocal errors
            i = start
            while time.perf_counter() < until:
                began = time.perf_counter()
                response = await client.post(path, json={"query": questions[i % len(questions)]})
                times.append((time.perf_counter() - began) * 1000)
                errors += response.status_code != 200
                i += 1

        # one round first: connections open, nothing counted
        await asyncio.gather(*(caller(i, time.perf_counter()) for i in range(clients)))
        times.clear()
        started = time.perf_counter()
        until = started + seconds
        await asyncio.gather(*(caller(i, until) for i in range(clients)))
        elapsed = time.perf_counter() - started
    return times, errors, elapsed


def concurrent(
    url: str,
    key: str,
    user_id: str,
    questions: Sequence[str],
    *,
    clients: int,
    seconds: float,
    pids: Sequence[int] = (),
) -> dict[str, Any]:
    """``clients`` callers searching in a loop for ``seconds``: throughput and latency,
    and the CPU milliseconds per request of each process in ``pids`` (the API, Neo4j)."""
    headers = {"Authorization": f"Bearer {key}"}
    path = f"/v1/users/{user_id}/search"
    before = {pid: cpu_seconds(pid) for pid in pids}
    times, errors, elapsed = asyncio.run(_load(url, headers, path, questions, clients, seconds))
    cpu = {
        str(pid): round((cpu_seconds(pid) - before[pid]) * 1000 / max(1, len(times)), 2)
        for pid in pids
    }
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": len(times),
        "errors": errors,
        "req_per_s": round(len(times) / elapsed, 1),
        **_summary(times),
        **({"cpu_ms_per_request": cpu} if cpu else {}),
    }


def measure(
    url: str,
    key: str,
    *,
    user_id: str,
    search: Callable[[str], Any] | None,
    n: int = 100,
    clients: int = 16,
    seconds: float = 15.0,
    questions: Sequence[str] = QUESTIONS,
    pids: Sequence[int] = (),
) -> dict[str, Any]:
    """The three figures of the module's docstring; ``search`` None skips the first.
    ``pids``: processes whose CPU per request the load reports (the API, Neo4j)."""
    out: dict[str, Any] = {"questions": len(questions)}
    headers = {"Authorization": f"Bearer {key}"}
    path = f"/v1/users/{user_id}/search"
    with httpx.Client(base_url=url, headers=headers, timeout=60.0) as client:

        def over_http(question: str) -> None:
            response = client.post(path, json={"query": question})
            response.raise_for_status()

        for question in questions:  # a first round warms both sides, uncounted
            over_http(question)
            if search is not None:
                search(question)
        # interleaved rounds: both see the same machine load
        http_ms: list[float] = []
        search_ms: list[float] = []
        for start in range(0, n, len(questions)):
            rnd = min(len(questions), n - start)
            http_ms += one_at_a_time(over_http, questions, rnd)
            if search is not None:
                search_ms += one_at_a_time(search, questions, rnd)
    out["http"] = _summary(http_ms)
    if search is not None:
        out["search"] = _summary(search_ms)
        out["http_minus_search_p50_ms"] = round(out["http"]["p50_ms"] - out["search"]["p50_ms"], 2)
    if clients > 0:
        out["concurrent"] = concurrent(
            url, key, user_id, questions, clients=clients, seconds=seconds, pids=pids
        )
    return out
