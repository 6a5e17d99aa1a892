"""Two figures of issue 38, measured on a real Neo4j (docs/scaling.md):

- writes: ``Memory.remember_many`` (batches of 100 facts, vectors given) against a bare
  ``UNWIND … CREATE`` of the same rows, interleaved batch by batch in one run;
- read-your-writes across replicas: two API servers (each its own driver and bookmark
  manager), a write through one and a read of it through the other, with the write's
  ``Hmem-Bookmark`` and without it.

    python -m hmem_bench.write_path --sessions 50 --batches 20 --pairs 1000
"""

from __future__ import annotations

import random
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from hmem.config import Config
from hmem.memory import Memory, make_driver
from hmem.models import FactDraft
from hmem_bench.queries import query

__all__ = ["batch_writes", "read_your_writes"]


def _vector(rng: random.Random, dim: int) -> list[float]:
    raw = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


def _p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def batch_writes(
    config: Config, batches: int, size: int = 100, *, ner: str | None = None
) -> dict[str, Any]:
    """remember_many against the bare statement, batch by batch on the same server.
    ``ner``: the entity finder for drafts that name none (``off``: the same work as the
    bare rows, which have no entities; default: the configured one, spaCy)."""
    rng = random.Random(38)  # noqa: S311  # test vectors, not secrets
    update: dict[str, Any] = {"embed_provider": "none"}
    if ner is not None:
        update["ner"] = ner
    settings = config.model_copy(update=update)
    ours, bare = f"bench-many-{uuid.uuid4().hex[:8]}", f"bench-bare-{uuid.uuid4().hex[:8]}"
    start = datetime(2025, 1, 1, tzinfo=UTC)
    many_s: list[float] = []
    bare_s: list[float] = []
    with Memory(settings) as memory:
        memory.init_schema()
        driver = memory.store._driver
        try:
            for b in range(batches):
                rows = [
                    {
                        "id": uuid.uuid4().hex,
                        "text": f"Maya noted item {b}-{n}: {uuid.uuid4().hex[:12]}.",
                        "embedding": _vector(rng, settings.embedding_dim),
                        "valid_from": start + timedelta(minutes=b * size + n),
                    }
                    for n in range(size)
                ]
                drafts = [
                    FactDraft(text=r["text"], embedding=r["embedding"], valid_from=r["valid_from"])
                    for r in rows
                ]
                # alternate which goes first, so neither always meets a warmer cache
                order = ("many", "bare") if b % 2 == 0 else ("bare", "many")
                for which in order:
                    t0 = time.perf_counter()
                    if which == "many":
                        memory.remember_many(drafts, user_id=ours)
                        many_s.append(time.perf_counter() - t0)
                    else:
                        driver.execute_query(
                            query("bare_create"),
                            {"user_id": bare, "rows": rows},
                            database_=settings.neo4j_database,
                        )
                        bare_s.append(time.perf_counter() - t0)
        finally:
            memory.erase_user(ours)
            driver.execute_query(
                query("bare_delete"), {"user_id": bare}, database_=settings.neo4j_database
            )
    # the first pair warms plans and caches; it is reported, not counted
    many, flat = many_s[1:] or many_s, bare_s[1:] or bare_s
    return {
        "batches": batches,
        "batch_size": size,
        "ner": settings.ner,
        "remember_many_ms_p50": 1000 * _p50(many),
        "bare_create_ms_p50": 1000 * _p50(flat),
        "remember_many_rows_per_s": size * len(many) / sum(many),
        "bare_create_rows_per_s": size * len(flat) / sum(flat),
        "ratio_of_bare": sum(flat) / sum(many),
    }


class _Server:
    """The API served by uvicorn on a free loopback port, in a thread."""

    def __init__(self, config: Config) -> None:
        import uvicorn

        from hmem.api import create_app

        self.server = uvicorn.Server(
            uvicorn.Config(
                create_app(config),
                host="127.0.0.1",
                port=0,
                log_config=None,
                access_log=False,
                lifespan="on",
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = ""

    def __enter__(self) -> _Server:
        self.thread.start()
        deadline = time.monotonic() + 600
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@contextmanager
def _tenant(config: Config) -> Iterator[tuple[str, str]]:
    from hmem.graph.apikeys import KeyStore

    driver = make_driver(config)
    keys = KeyStore(driver, database=config.neo4j_database)
    keys.ensure_schema()
    name = f"bench-ryw-{uuid.uuid4().hex[:8]}"
    try:
        yield name, keys.create(name, name="bench").key
    finally:
        keys.delete_tenant(name)
        driver.close()


def read_your_writes(config: Config, pairs: int, *, progress: bool = True) -> dict[str, Any]:
    """``pairs`` writes through replica A, each read at once through replica B: half
    the run with the write's bookmark, half without, alternating."""
    rng = random.Random(7)  # noqa: S311  # test vectors, not secrets
    settings = config.model_copy(update={"embed_provider": "none"})
    user = f"ryw-{uuid.uuid4().hex[:8]}"
    seen = {"with": 0, "without": 0}
    read_ms: dict[str, list[float]] = {"with": [], "without": []}
    with _tenant(settings) as (tenant, key), _Server(settings) as a, _Server(settings) as b:
        auth = {"Authorization": f"Bearer {key}"}
        with httpx.Client(headers=auth, timeout=60) as http:
            try:
                for n in range(2 * pairs):
                    mode = "with" if n % 2 == 0 else "without"
                    wrote = http.post(
                        f"{a.url}/v1/users/{user}/facts",
                        json={
                            "text": f"Maya wrote note {n} {uuid.uuid4().hex[:10]}.",
                            "embedding": _vector(rng, settings.embedding_dim),
                        },
                    )
                    wrote.raise_for_status()
                    fact_id = wrote.json()["added"][0]
                    headers = {}
                    if mode == "with":
                        headers["Hmem-Bookmark"] = wrote.headers["Hmem-Bookmark"]
                    t0 = time.perf_counter()
                    read = http.get(f"{b.url}/v1/users/{user}/facts/{fact_id}", headers=headers)
                    read_ms[mode].append(1000 * (time.perf_counter() - t0))
                    seen[mode] += read.status_code == 200
                    if progress and (n + 1) % max(1, pairs // 10) == 0:
                        print(f"\r  read-your-writes: {n + 1}/{2 * pairs}", end="", file=sys.stderr)
            finally:
                http.delete(f"{a.url}/v1/users/{user}")
        if progress:
            print(file=sys.stderr)
    return {
        "pairs_each": pairs,
        "tenant": tenant,
        "seen_with_bookmark": seen["with"],
        "seen_without_bookmark": seen["without"],
        "read_ms_p50_with_bookmark": _p50(read_ms["with"]),
        "read_ms_p50_without_bookmark": _p50(read_ms["without"]),
    }
