"""``Memory.search()`` latency on real data, embedding included, stage by stage.

    python -m hmem_bench.latency --search-only [--search-shapes facts,full,30k] [--http]

Per shape (LoCoMo facts, LoCoMo facts + turns: conv-26 written through
``Memory.remember_many`` with the local MiniLM vectors; a user of 30,000 real facts,
LoCoMo's ten conversations with their turns, repeated with a variant mark and the
original's vector; ``1m``: one user of 200 synthetic facts in a store of 1,000,000
over 5,000 users, hmem_bench.latency's synthetic world, loaded once and kept), each
question asked once (so the query-embedding cache never answers; its hit is timed
apart), after a warm-up on other questions:

- the query embedding alone (``SearchTimings.embed_ms``, the embedder's latency path),
- the Neo4j server time (``server_ms``, from the driver's result summaries),
- ``search()`` end to end as the caller sees it,
- HTTP ``POST /v1/users/{id}/search`` end to end (``--http``: the app on uvicorn in
  this process, a real loopback socket, one httpx client),

each p50 / p95 / p99, the stage shares of the mean search (embed, server, the Bolt
client beyond the server, ranking and packing), and ``search() / (embedding + server)``
of the same run, of the p50s and the median of the per-question ratios.
Touches (``last_used_at``) are on, as for a user.
"""

# ruff: noqa: S311  (benchmark data, not secrets)

from __future__ import annotations

import json
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hmem_bench import locomo as locomo_bench
from hmem_bench.data import Conversation, load_locomo
from hmem_bench.embed_cache import CachedEmbedder

if TYPE_CHECKING:
    from neo4j import Driver

__all__ = ["SearchRun", "measure_shape", "run_search_shapes", "write_search_report"]

K = 30
WARMUP = 30
MILLION, MILLION_USERS = 1_000_000, 5_000


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class SearchRun:
    """One shape's figures (milliseconds per question)."""

    shape: str
    facts: int
    embed: list[float] = field(default_factory=list)
    server: list[float] = field(default_factory=list)
    search: list[float] = field(default_factory=list)
    client: list[float] = field(default_factory=list)  # Bolt client beyond the server
    ranking: list[float] = field(default_factory=list)  # scoring + packing
    http: list[float] = field(default_factory=list)
    cached: list[float] = field(default_factory=list)  # the same question again

    def ratio_of_p50(self) -> float:
        return pct(self.search, 50) / (pct(self.embed, 50) + pct(self.server, 50))

    def ratio_median(self) -> float:
        return statistics.median(
            s / (e + v) for s, e, v in zip(self.search, self.embed, self.server, strict=True)
        )

    def lines(self) -> list[str]:
        def line(label: str, values: Sequence[float]) -> str:
            return (
                f"  {label:<28}: p50 {pct(values, 50):6.2f}  p95 {pct(values, 95):6.2f}  "
                f"p99 {pct(values, 99):6.2f} ms  (n={len(values)})"
            )

        out = [f"== {self.shape} ({self.facts:,} facts, k = {K})"]
        out.append(line("query embedding", self.embed))
        out.append(line("Neo4j server time", self.server))
        out.append(line("search() end to end", self.search))
        if self.http:
            out.append(line("HTTP /search end to end", self.http))
        if self.cached:
            out.append(line("search(), question cached", self.cached))
        total = sum(self.search)
        if total > 0:
            shares = {
                "embed": sum(self.embed),
                "server": sum(self.server),
                "Bolt client": sum(self.client),
                "ranking + pack": sum(self.ranking),
            }
            rest = total - sum(shares.values())
            parts = ", ".join(f"{k} {100 * v / total:.0f} %" for k, v in shares.items())
            out.append(f"  shares of search(): {parts}, other {100 * rest / total:.0f} %")
        out.append(
            f"  search() / (embedding + server): {self.ratio_of_p50():.2f} (of the p50s), "
            f"{self.ratio_median():.2f} (median per question)"
        )
        return out

    def as_dict(self) -> dict[str, Any]:
        def cell(values: Sequence[float]) -> list[float] | None:
            if not values:
                return None
            return [round(pct(values, q), 2) for q in (50, 95, 99)]

        return {
            "shape": self.shape,
            "facts": self.facts,
            "k": K,
            "questions": len(self.search),
            "embed_ms": cell(self.embed),
            "server_ms": cell(self.server),
            "search_ms": cell(self.search),
            "http_ms": cell(self.http),
            "cached_ms": cell(self.cached),
            "ratio_p50": round(self.ratio_of_p50(), 3),
            "ratio_median": round(self.ratio_median(), 3),
        }


def measure_shape(
    memory: Any,
    shape: str,
    user: str,
    facts: int,
    questions: Sequence[str],
    warmup: Sequence[str],
    http: Callable[[str], None] | None = None,
) -> SearchRun:
    """Each of ``questions`` once through ``memory.search`` (and ``http`` when given,
    a different question order would not matter: both are cold for the embedding cache
    only on their first ask, so HTTP asks the questions with a mark the cache misses)."""
    run = SearchRun(shape, facts)
    for q in warmup:
        memory.search(q, user_id=user, k=K)
    vectors = getattr(memory.recall, "vectors", None)  # (a checkout without the cache)
    if vectors is not None:
        vectors.clear()  # another shape asked these questions: embed them again
    for q in questions:
        started = time.perf_counter()
        result = memory.search(q, user_id=user, k=K)
        elapsed = (time.perf_counter() - started) * 1000
        t = result.timings
        run.search.append(elapsed)
        run.embed.append(t.embed_ms)
        run.server.append(t.server_ms)
        run.client.append(max(0.0, t.candidates_ms + t.expand_ms - t.server_ms))
        run.ranking.append(t.scoring_ms)
    for q in questions[: max(1, len(questions) // 4)]:
        started = time.perf_counter()
        memory.search(q, user_id=user, k=K)
        run.cached.append((time.perf_counter() - started) * 1000)
    if http is not None:
        for q in warmup[:5]:
            http(q + " ?")
        for q in questions:
            started = time.perf_counter()
            http(q + " ?")  # not the text asked above: the embedding cache misses
            run.http.append((time.perf_counter() - started) * 1000)
    memory.recall.flush()
    return run


class _Http:
    """The app on uvicorn in this process, on a free loopback port; ``ask`` is one
    ``POST /v1/users/{user}/search`` over a kept-alive connection."""

    def __init__(self, config: Any) -> None:
        import socket

        import httpx
        import uvicorn

        from hmem.api import create_app
        from hmem.graph.apikeys import KeyStore
        from hmem.memory import make_driver

        self._driver = make_driver(config)
        keys = KeyStore(self._driver, database=config.neo4j_database)
        keys.ensure_schema()
        self.tenant = "bench-http"
        keys.delete_tenant(self.tenant)
        key = keys.create(self.tenant, name="bench").key
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        app = create_app(config, driver=self._driver)
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,
        )
        self.keys = keys

    def stored(self, user: str) -> str:
        return f"{self.tenant}:{user}"

    def asker(self, user: str) -> Callable[[str], None]:
        def ask(question: str) -> None:
            reply = self.client.post(f"/v1/users/{user}/search", json={"query": question, "k": K})
            reply.raise_for_status()

        return ask

    def close(self) -> None:
        self.client.close()
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.keys.delete_tenant(self.tenant)
        self._driver.close()


def _ingest_as(memory: Any, corpus: locomo_bench.LocomoCorpus, user: str) -> None:
    locomo_bench.ingest(memory, corpus, user=user)


def _big_user(
    conversations: Sequence[Conversation], embedder: CachedEmbedder, size: int
) -> locomo_bench.LocomoCorpus:
    """LoCoMo's conversations with their turns, repeated (each copy's texts marked) up
    to ``size`` facts, as one corpus of the first conversation's questions."""
    base = [i for c in conversations for i in locomo_bench.build_items(c, "full")]
    base_vectors = embedder.matrix([i.text for i in base])
    items: list[locomo_bench.Item] = []
    copy = 0
    while len(items) < size:
        for item in base[: size - len(items)]:
            text = item.text if copy == 0 else f"{item.text} ({copy})"
            items.append(
                locomo_bench.Item(
                    id=f"{item.id}-c{copy}",
                    text=text,
                    category=item.category,
                    evidence=item.evidence,
                    entities=item.entities,
                    session=item.session,
                    source=item.source,
                    turn=item.turn,
                    speaker=item.speaker,
                )
            )
        copy += 1
    # A copy keeps its original's vector: what a search costs does not depend on it,
    # and embedding 30,000 texts would cost this machine minutes.
    vectors = np.tile(base_vectors, (len(items) // len(base) + 1, 1))[: len(items)]
    conv = conversations[0]
    sessions = tuple(s for c in conversations for s in c.sessions)
    merged = type(conv)(conv.conversation_id, conv.speakers, sessions, conv.questions)
    return locomo_bench.LocomoCorpus(merged, "full", items, vectors, embedder.matrix([]))


class _Million:
    """The 1M synthetic store of hmem_bench.latency (the same world: its users, texts
    and random unit vectors), loaded if absent, and one more user of its shape
    (200 facts) for ``Memory.search``: under the HTTP tenant when HTTP is measured.
    The facts' vectors are random, so only the time of a search means anything here,
    not what it finds; its questions are the world's (pseudo-words naming one of the
    user's entities), embedded by the model like any question."""

    def __init__(self, driver: Driver, database: str, say: Callable[[str], None]) -> None:
        from hmem_bench import latency as synthetic

        self._synthetic = synthetic
        rng = random.Random(42)  # as hmem_bench.latency.main: the same world, reused
        vocab, names = synthetic._vocabulary(2_000, rng), synthetic._vocabulary(400, rng)
        self.world = synthetic.World(MILLION_USERS, vocab, names)
        self.per_user = MILLION // MILLION_USERS
        self._driver, self._database = driver, database
        have = min(
            synthetic._loaded(driver, database, self.world.user(0)),
            synthetic._loaded(driver, database, self.world.user(MILLION_USERS - 1)),
        )
        if have < self.per_user:
            say(f"  loading {MILLION:,} synthetic facts over {MILLION_USERS:,} users")
            started = time.monotonic()
            synthetic.load(driver, database, self.world, have, self.per_user)
            say(f"  load took {time.monotonic() - started:,.0f}s")

    def close(self) -> None:
        self._driver.close()

    def user(self, prefix: str) -> tuple[str, list[str], list[str]]:
        """The shape's user (``prefix`` + 00000), loaded, and its questions and
        warm-up questions."""
        one = type(self.world)(1, self.world.vocab, self.world.names, prefix=prefix)
        have = self._synthetic._loaded(self._driver, self._database, one.user(0))
        self._synthetic.load(self._driver, self._database, one, have, self.per_user)
        rng, nrng = random.Random(7), np.random.default_rng(7)
        asked = list(dict.fromkeys(one.question(0, rng, nrng)[0] for _ in range(400)))
        return one.user(0), asked[WARMUP:], asked[:WARMUP]


def run_search_shapes(
    config: Any,
    *,
    locomo: Path,
    model_dir: Path,
    cache_dir: Path,
    shapes: Sequence[str],
    http: bool,
    questions: int,
    say: Callable[[str], None],
) -> list[SearchRun]:
    from hmem.extract.local_embed import LocalEmbeddings
    from hmem.memory import Memory, make_driver

    local = LocalEmbeddings(model_dir=model_dir, expected_dim=config.embedding_dim)
    embedder = CachedEmbedder(local, cache_dir)
    config = type(config)(
        **{
            **config.model_dump(),
            "embed_provider": "local",
            "embed_model_dir": model_dir,
            "max_fact_chars": max(config.max_fact_chars, 16_000),
        }
    )
    conversations = load_locomo(locomo)
    conv = conversations[0]
    asked = [q.question for q in conv.questions if q.category in (1, 2, 3, 4)][:questions]
    warm = [q.question for c in conversations[1:] for q in c.questions][:WARMUP]
    runs: list[SearchRun] = []
    server = _Http(config) if http else None
    memory = Memory(config, embedder=local)
    million: _Million | None = None
    try:
        memory.init_schema()
        for shape in shapes:
            if shape == "1m":
                if million is None:
                    million = _Million(make_driver(config), config.neo4j_database, say)
                prefix = "bench-search-1m-"
                user, mine, warm_1m = million.user(
                    server.stored(prefix) if server is not None else prefix
                )
                label = (
                    f"one user of {million.per_user} synthetic facts in a store of "
                    f"{MILLION:,} ({MILLION_USERS:,} users)"
                )
                ask = server.asker(user.split(":", 1)[1]) if server is not None else None
                run = measure_shape(
                    memory, label, user, million.per_user, mine[:questions], warm_1m, ask
                )
                for line in run.lines():
                    say(line)
                runs.append(run)
                continue
            if shape in locomo_bench.SETTINGS:
                corpus = locomo_bench.build_corpus(conv, shape, embedder)
                label = f"LoCoMo {conv.conversation_id} " + (
                    "facts" if shape == "facts" else "facts + turns"
                )
            else:
                size = int(shape.lower().removesuffix("k")) * 1000
                say(f"  building a {size:,}-fact user (embeddings cached in {cache_dir})")
                corpus = _big_user(conversations, embedder, size)
                label = f"one user of {size:,} LoCoMo facts + turns"
            user = f"bench-search-{shape}"
            if server is not None:
                user = server.stored(user)
            started = time.monotonic()
            _ingest_as(memory, corpus, user)
            took = time.monotonic() - started
            say(f"  {label}: {len(corpus.items):,} facts written in {took:.0f}s")
            ask = server.asker(user.split(":", 1)[1]) if server is not None else None
            run = measure_shape(memory, label, user, len(corpus.items), asked, warm, ask)
            for line in run.lines():
                say(line)
            runs.append(run)
    finally:
        memory.shutdown()
        if million is not None:
            million.close()
        if server is not None:
            server.close()
        embedder.close()
    return runs


def write_search_report(out: Path, runs: Sequence[SearchRun], command: str) -> None:
    """search_latency.json and search_latency.md in ``out``: the figures, the command,
    when, and how busy the machine was (its load average: these are wall times)."""
    out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    meta = {
        "command": command,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cores": os.cpu_count(),
        "load_average_1_5_15": [round(x, 2) for x in load],
    }
    data = {"meta": meta, "shapes": [r.as_dict() for r in runs]}
    (out / "search_latency.json").write_text(json.dumps(data, indent=2) + "\n")
    md = [
        "# Memory.search() latency on real data (hmem_bench.latency_search)",
        "",
        f"`{command}`, finished {meta['finished']}, {meta['cores']} cores, load average "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) when it ended.",
        "",
        "```",
        *[line for r in runs for line in r.lines()],
        "```",
        "",
    ]
    (out / "search_latency.md").write_text("\n".join(md))
