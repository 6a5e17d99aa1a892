"""hmem bench http's arithmetic; the load itself runs against a live API (hmem bench http)."""

from __future__ import annotations

import os

from hmem_bench.http_load import _summary, cpu_seconds, one_at_a_time


def test_one_at_a_time_cycles_the_questions() -> None:
    asked: list[str] = []
    times = one_at_a_time(asked.append, ["a", "b", "c"], 7)
    assert asked == ["a", "b", "c", "a", "b", "c", "a"]
    assert len(times) == 7 and all(t >= 0 for t in times)


def test_summary_percentiles() -> None:
    summary = _summary([float(v) for v in range(1, 101)])
    assert summary == {"n": 100, "p50_ms": 50.5, "p95_ms": 96.0}


def test_cpu_seconds_grows_with_work() -> None:
    before = cpu_seconds(os.getpid())
    sum(i * i for i in range(300_000))
    assert cpu_seconds(os.getpid()) >= before
