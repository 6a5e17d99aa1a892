"""Two figures of issue 38, measured on a real Neo4j (docs/scaling.md):

- writes: ``Memory.remember_many`` (batches of 100 facts, vectors given; entities given,
  found by spaCy's NER, or none) against a bare ``UNWIND … CREATE`` of the same rows,
  interleaved batch by batch in one run;
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import httpx

from hmem.config import Config
from hmem.extract.entities import find_entities, forget_spans, pipeline_name
from hmem.memory import Memory, make_driver
from hmem.models import EntityRef, FactDraft
from hmem_bench.queries import query

__all__ = ["WRITE_CASES", "batch_writes", "read_your_writes"]


def _vector(rng: random.Random, dim: int) -> list[float]:
    raw = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


def _p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


#: remember_many's cases, each against the same bare rows: what the caller gives beside
#: the text (vectors always; entities too, or found by spaCy's NER, or no entities).
WRITE_CASES = {
    "given": "vectors + entities given",
    "ner": "vectors given, NER on",
    "off": "vectors given, NER off",
}
_PEOPLE = ("Maya", "Caroline", "Melanie", "Sam", "Priya", "Jon")
_CITIES = ("Paris", "Lisbon", "Oslo", "Rome", "Vienna", "Prague", "Dublin", "Madrid")


def _batch(
    rng: random.Random, b: int, size: int, dim: int, start: datetime
) -> tuple[list[dict[str, Any]], list[FactDraft], list[FactDraft]]:
    """The bare rows, and the same facts as drafts with and without their entities."""
    rows, named, bare = [], [], []
    for n in range(size):
        person, city = _PEOPLE[n % len(_PEOPLE)], _CITIES[(b + n) % len(_CITIES)]
        row = {
            "id": uuid.uuid4().hex,
            "text": f"{person} noted item {b}-{n} in {city}: {uuid.uuid4().hex[:12]}.",
            "embedding": _vector(rng, dim),
            "valid_from": start + timedelta(minutes=b * size + n),
        }
        rows.append(row)
        draft = FactDraft(
            text=row["text"], embedding=row["embedding"], valid_from=row["valid_from"]
        )
        bare.append(draft)
        entities = [EntityRef(name=person, type="person"), EntityRef(name=city, type="place")]
        named.append(draft.model_copy(update={"entities": entities}))
    return rows, named, bare


def batch_writes(config: Config, batches: int, size: int = 100) -> dict[str, Any]:
    """remember_many in each of ``WRITE_CASES`` against the bare statement, batch by
    batch on the same server: every batch is written four times (each case and the
    bare rows, each its own user), the order rotating so none always meets a warmer
    cache. The bare rows are fact nodes only; remember_many also writes the entity
    nodes and their links, the guard, dedup and audit.

    Last in each round, spaCy's NER alone over the same texts (``find_entities``, its
    cache of read texts emptied first, so the model really runs): no write path that
    runs the NER can beat bare / (NER alone), whatever its own write costs."""
    rng = random.Random(38)  # noqa: S311  # test vectors, not secrets
    settings = config.model_copy(update={"embed_provider": "none"})
    users = {c: f"bench-many-{c}-{uuid.uuid4().hex[:8]}" for c in WRITE_CASES}
    bare_user = f"bench-bare-{uuid.uuid4().hex[:8]}"
    start = datetime(2025, 1, 1, tzinfo=UTC)
    seconds: dict[str, list[float]] = {c: [] for c in (*WRITE_CASES, "bare", "ner_alone")}
    with (
        Memory(settings) as memory,
        Memory(settings.model_copy(update={"ner": "off"})) as without,
    ):
        memory.init_schema()
        driver = memory.store._driver
        try:
            for b in range(batches):
                rows, named, bare = _batch(rng, b, size, settings.embedding_dim, start)
                writes: dict[str, Callable[[], object]] = {
                    "given": partial(memory.remember_many, named, user_id=users["given"]),
                    "ner": partial(memory.remember_many, bare, user_id=users["ner"]),
                    "off": partial(without.remember_many, bare, user_id=users["off"]),
                    "bare": partial(
                        driver.execute_query,
                        query("bare_create"),
                        {"user_id": bare_user, "rows": rows},
                        database_=settings.neo4j_database,
                    ),
                }
                order = list(writes)
                for which in order[b % len(order) :] + order[: b % len(order)]:
                    t0 = time.perf_counter()
                    writes[which]()
                    seconds[which].append(time.perf_counter() - t0)
                forget_spans()
                t0 = time.perf_counter()
                find_entities([d.text for d in bare])
                seconds["ner_alone"].append(time.perf_counter() - t0)
                forget_spans()
        finally:
            for user in users.values():
                memory.erase_user(user)
            driver.execute_query(
                query("bare_delete"), {"user_id": bare_user}, database_=settings.neo4j_database
            )
    # the first round warms plans and caches; it is left out
    kept = {k: v[1:] or v for k, v in seconds.items()}
    flat = kept["bare"]
    out: dict[str, Any] = {
        "batches": batches,
        "batch_size": size,
        "ner": settings.ner,
        "bare_create_ms_p50": 1000 * _p50(flat),
        "bare_create_rows_per_s": size * len(flat) / sum(flat),
        "goal_ratio_of_bare_at_least": 0.5,
        "ner_pipeline": pipeline_name(),
        "ner_alone_ms_p50": 1000 * _p50(kept["ner_alone"]),
        # the best ratio any write that runs the NER could reach: its write free
        "ner_bound_ratio_of_bare": sum(flat) / sum(kept["ner_alone"]),
        "cases": {},
    }
    for case, label in WRITE_CASES.items():
        many = kept[case]
        out["cases"][case] = {
            "label": label,
            "remember_many_ms_p50": 1000 * _p50(many),
            "remember_many_rows_per_s": size * len(many) / sum(many),
            "ratio_of_bare": sum(flat) / sum(many),
        }
    return out


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
