"""Write-path benchmark: calls, tokens and time per ``add()`` with a fake model server.

The model is a real OpenAI-compatible HTTP server on 127.0.0.1 (``hmem.testing``) that
answers at once with three facts per session, one of which contradicts a stored fact.
What it measures is hmem's own cost: wall time per write minus the time spent waiting
for the chat and embedding calls (the "overhead"), with p50/p95, plus calls and tokens.

    python -m hmem_bench.write_path --sessions 200

``--batches`` and ``--pairs`` add the figures of ``hmem_bench.replicas``: remember_many
against a bare ``UNWIND … CREATE`` (the goal: at least half its rate) with entities
given, found by spaCy's NER, and with the finder off, interleaved in one run; and
read-your-writes across two API replicas with and without the bookmark. ``writes()`` is
what ``hmem bench run`` reports as "Writes".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hmem.config import Config
from hmem.memory import Memory
from hmem.testing import FAKE_API_KEY, FakeOpenAIServer

__all__ = ["main", "run"]

CITIES = ["Paris", "Lisbon", "Oslo", "Rome", "Vienna", "Prague", "Dublin", "Madrid"]


def _extractor(body: dict[str, Any]) -> dict[str, Any]:
    """Three facts per session; the move contradicts the stored 'lives in' fact."""
    prompt = body["messages"][-1]["content"]
    number = int(re.findall(r"session (\d+)", prompt)[-1])
    stored = dict(re.findall(r"^- \[(\w+)\] (.*?) \(since", prompt, re.M))
    home = next((fid for fid, text in stored.items() if " lives in " in text), None)
    city = CITIES[number % len(CITIES)]
    move: dict[str, Any] = {
        "text": f"Maya lives in {city} since session {number}.",
        "category": "semantic",
        "importance": 6,
        "event_date": None,
        "entities": [{"name": "Maya", "type": "person"}, {"name": city, "type": "place"}],
        "relations": [{"target_id": home, "relation": "contradicts"}] if home else [],
    }
    hobby = {
        "text": f"Maya tried hobby number {number} and liked it a lot.",
        "category": "episodic",
        "importance": 3,
        "event_date": "yesterday",
        "entities": [{"name": "Maya", "type": "person"}],
        "relations": [],
    }
    friend = {
        "text": f"Maya met her friend Sam{number} for coffee in {city}.",
        "category": "episodic",
        "importance": 4,
        "event_date": None,
        "entities": [{"name": f"Sam{number}", "type": "person"}],
        "relations": [],
    }
    return {"facts": [move, hobby, friend]}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(config: Config, sessions: int, *, progress: bool = True) -> dict[str, Any]:
    user = f"bench-write-{uuid.uuid4().hex[:8]}"
    with FakeOpenAIServer() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.embedding_dim = config.embedding_dim
        settings = Config(
            **{
                **config.model_dump(),
                "llm_base_url": fake.base_url,
                "llm_api_key": FAKE_API_KEY,
                "embed_provider": "openai",
                "embed_base_url": fake.base_url,
                "embed_api_key": FAKE_API_KEY,
                "embed_model": "fake-embed",
                # the fake's vectors must not claim the store for its model: the report's
                # run searches the same store with the real one afterwards
                "embed_model_check": False,
                "queue_path": Path(tmp) / "queue.sqlite3",
            }
        )
        with Memory(settings) as memory:
            memory.init_schema()
            walls: list[float] = []
            overheads: list[float] = []
            results = []
            start_day = datetime(2025, 1, 1, 9, tzinfo=UTC)
            started = time.perf_counter()
            for n in range(sessions):
                fake.queue_chat(_extractor)
                t0 = time.perf_counter()
                result = memory.add(
                    f"Hi, this is session {n}. I moved again and met a friend.",
                    user_id=user,
                    observed_at=start_day + timedelta(days=n),
                )
                wall = time.perf_counter() - t0
                walls.append(wall)
                overheads.append(wall - result.model_seconds - result.embed_seconds)
                results.append(result)
                if progress and (n + 1) % max(1, sessions // 20) == 0:
                    print(f"\r  write path: {n + 1}/{sessions} sessions", end="", file=sys.stderr)
            elapsed = time.perf_counter() - started
            if progress:
                print(file=sys.stderr)
            current = len(memory.facts(user_id=user, limit=10_000))
            memory.erase_user(user)
        return {
            "sessions": sessions,
            "chat_calls_per_write": fake.chat_calls / sessions,
            "embedding_requests_per_write": fake.embedding_calls / sessions,
            "prompt_tokens_per_write": statistics.mean(r.prompt_tokens for r in results),
            "completion_tokens_per_write": statistics.mean(r.completion_tokens for r in results),
            "facts_added": sum(len(r.added) for r in results),
            "facts_superseded": sum(len(r.superseded) for r in results),
            "current_facts_at_end": current,
            "wall_ms_p50": 1000 * _pct(walls, 0.50),
            "wall_ms_p95": 1000 * _pct(walls, 0.95),
            "model_ms_p50": 1000 * _pct([r.model_seconds for r in results], 0.50),
            "overhead_ms_p50": 1000 * _pct(overheads, 0.50),
            "overhead_ms_p95": 1000 * _pct(overheads, 0.95),
            "writes_per_s": sessions / elapsed,
        }


def writes(config: Config, sessions: int, batches: int) -> dict[str, Any]:
    """The figures of issue 38's write goals (the benchmark report's "Writes"):
    ``add()`` overhead excluding the model over ``sessions`` sessions, and
    remember_many against the bare rows in each case of ``replicas.WRITE_CASES``,
    interleaved over ``batches`` batches of 100 in one run. Either is left out at 0."""
    from hmem_bench.replicas import batch_writes

    out: dict[str, Any] = {"load_average_before": [round(x, 2) for x in os.getloadavg()]}
    if batches:
        out["remember_many"] = batch_writes(config, batches)
    if sessions:
        out["add"] = run(config, sessions, progress=False)
        out["add"]["goal_overhead_ms_p50_at_most"] = 20.0
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--batches", type=int, default=0, help="remember_many batches of 100")
    parser.add_argument("--pairs", type=int, default=0, help="read-your-writes pairs per mode")
    args = parser.parse_args(argv)
    config = Config()
    report = writes(config, args.sessions, args.batches)
    if args.pairs:
        from hmem_bench.replicas import read_your_writes

        report["read_your_writes"] = read_your_writes(config, args.pairs)
    print(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
