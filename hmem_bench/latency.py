"""Recall latency on a real Neo4j: 10k → 100k → 1M synthetic facts over 5,000 users.

    python -m hmem_bench.latency --fresh --stop        # own server (7727), 10k/100k/1M
    python -m hmem_bench.latency --sizes 10000,100000 --queries 500
    python -m hmem_bench.latency --uri bolt://host:7687 --password ...   # bring your own
    python -m hmem_bench.latency --fresh --sizes '' --big 10x100000 --neo4j-version 2026
    python -m hmem_bench.latency --fresh --sizes '' --big 1x100000 --big-texts real

Facts get random unit vectors (384-d float32, drawn by numpy), pseudo-word text for the
fulltext index, one of ten per-user entities, and every tenth fact supersedes the one
before it. Sizes are built incrementally; ``--fresh`` (own server only) wipes the store
first. When the vector index is absent at the start, it stays absent during the loads
(an HNSW insert costs ~4 ms per vector) and is built once after the last size, awaited
with progress (``--index-timeout``), and the last size is measured again. Users up to
``--exact-max`` facts are scanned exactly and never use that index.

Three figures per size: the Neo4j server time of the recall statements, the end-to-end
``Recall.search()`` wall time as the client sees it (candidates, expand, scoring,
packing) with a precomputed query vector, and the query embedding, measured separately
with the local MiniLM model when it is present. ``--crossover`` also times
the exact per-user scan against the HNSW index with over-fetch for users of growing
size. Touches (``last_used_at``) are off so runs are repeatable.

``--big USERSxFACTS`` adds the big-user shape (e.g. 10 users of 100,000 facts each),
reported beside the 5,000-user one: the same figures with the strategy the read path
picks for them (on Neo4j 2026.02+ the in-index filtered SEARCH, on 5.26 the exact scan
or the global index, ``--big-strategy``), and the recall@k of that strategy's dense
candidates against the exact scan. ``--neo4j-version 2026`` runs the bench's own server
on the 2026.x line (its own ``--home``; the vector index then has ``user_id`` as a
filter property). ``--big-texts real`` builds the big users from real sentences found on
this machine (``hmem_bench.corpus``: site-packages docstrings and docs, man pages,
LoCoMo/BEAM) embedded with ``--model-dir``, and asks held-out sentences of the same
corpus (see docs/scaling.md); ``random`` (the default) keeps uniform random vectors.
"""

# ruff: noqa: S311  (benchmark data, not secrets)

from __future__ import annotations

import argparse
import random
import shutil
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import Driver, GraphDatabase

from hmem._text import lexical_user_key
from hmem.config import Config
from hmem.graph import catalog
from hmem.graph._records import packed
from hmem.graph.schema import (
    SCHEMA_STATEMENTS,
    VECTOR_INDEX,
    filtered_search,
    server_version,
    show_index,
)
from hmem.graph.search import DenseStrategy, FactSearch, Question
from hmem.localdb import LocalNeo4j, stop_on_signals
from hmem.recall import Recall
from hmem.recall.query import STOPWORDS
from hmem_bench.corpus import Corpus, default_roots, real_corpus

__all__ = ["main"]

DIM = 384
ENTITIES_PER_USER = 10
FACTS_PER_TX = 5_000
WARMUP = 200  # right after a start or a load the JIT and page cache are cold
NOW = datetime(2026, 11, 1, tzinfo=UTC)
START = datetime(2019, 1, 1, tzinfo=UTC)
DEFAULT_MODEL = Path("../shared/models/all-MiniLM-L6-v2-onnx")  # beside the checkout


def say(line: str) -> None:
    print(line, flush=True)


def _vocabulary(size: int, rng: random.Random) -> list[str]:
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


@dataclass
class World:
    users: int
    vocab: list[str]
    names: list[str]
    prefix: str = "bench-"
    # --big-texts real: user u's fact n is corpus sentence u * span + n (text and vector);
    # the sentences from users * span on are held out as questions (never stored).
    corpus: Corpus | None = None
    span: int = 0

    def user(self, i: int) -> str:
        return f"{self.prefix}{i:05d}"

    def entity(self, user: int, j: int) -> str:
        return self.names[(user * 7 + j * 13) % len(self.names)]

    def question(
        self, u: int, rng: random.Random, nrng: np.random.Generator
    ) -> tuple[str, list[float]]:
        """A question for user ``u``: with a corpus, a held-out sentence and its vector;
        else the bench's pseudo-words naming one of the user's entities, a random vector."""
        if self.corpus is not None:
            i = self.users * self.span + rng.randrange(len(self.corpus) - self.users * self.span)
            return self.corpus.texts[i], self.corpus.vectors[i].tolist()
        entity = self.entity(u, rng.randrange(ENTITIES_PER_USER))
        text = f"What about {entity.title()} and {' '.join(rng.sample(self.vocab, 3))}?"
        return text, _unit(nrng)


def sentence_entity(text: str) -> str | None:
    """A real sentence's entity for the bench: its first capitalised word after the
    first one (a name's shape, 3+ letters, not a stopword), case-folded; None if none."""
    for word in text.split()[1:]:
        word = word.strip(".,;:!?()\"'")
        name = len(word) >= 3 and word.isalpha() and word[0].isupper() and word[1:].islower()
        if name and word.casefold() not in STOPWORDS:
            return word.casefold()
    return None


def _facts_for(world: World, user: int, start: int, stop: int, indexed: bool) -> dict[str, Any]:
    rng = random.Random(user * 1_000_003 + start)
    uid = world.user(user)
    if world.corpus is not None:
        base = user * world.span
        vectors = world.corpus.vectors[base + start : base + stop]
        texts = world.corpus.texts[base + start : base + stop]
    else:
        # Uniform directions: normal draws, normalised (float32, as the store keeps them).
        vectors = np.random.default_rng(user * 1_000_003 + start).standard_normal(
            (stop - start, DIM), dtype=np.float32
        )
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        texts = []
    facts = []
    links = []
    for n, vector in zip(range(start, stop), vectors.tolist(), strict=True):
        entity = world.entity(user, n % ENTITIES_PER_USER)
        if texts:
            text = texts[n - start]
            entity = sentence_entity(text) or entity
        else:
            words = " ".join(rng.choice(world.vocab) for _ in range(rng.randint(8, 14)))
            text = f"{entity.title()} {words}."
        facts.append(
            {
                "id": f"{uid}-{n}",
                "text": text,
                "category": "episodic" if n % 10 == 3 else "semantic",
                "importance": 1 + n % 10,
                "valid_from": (START + timedelta(days=n * 3)).isoformat(),
                "entity": entity,
                "entity_id": f"{uid}-e-{entity}",
                "embedding": vector,
                "packed": packed(vector),
            }
        )
        if n % 10 == 9 and n - 1 >= start:
            links.append({"new_id": f"{uid}-{n}", "old_id": f"{uid}-{n - 1}"})
    return {
        "user_id": uid,
        "user_key": lexical_user_key(uid),
        "indexed": indexed,
        "facts": facts,
        "links": links,
        "now": NOW,
    }


def _loaded(driver: Driver, database: str, user_id: str) -> int:
    """How many facts with a vector the bench user has stored (in the index or not)."""
    return int(_run(driver, database, "search_bench_count", user_id=user_id)[0]["facts"])


def load(
    driver: Driver,
    database: str,
    world: World,
    have: int,
    want: int,
    indexed: bool | None = None,
) -> None:
    """Give every user facts ``have`` .. ``want - 1``, several users per transaction.

    Two writers on disjoint users: while one waits for Neo4j (the transaction, its
    commit and the fulltext index update), the other draws its batch in Python."""
    per_user = want - have
    if per_user <= 0:
        return
    stmt = catalog.statement("search_bench_load")
    total = per_user * world.users
    if indexed is None:  # as the store does: past vector_index_min_facts, in the index
        indexed = want > Config().vector_index_min_facts
    if per_user > FACTS_PER_TX:  # big users: chunks of one user's facts, two writers
        started = time.monotonic()

        def chunk(u: int, lo: int) -> None:
            bound = stmt.bind(_facts_for(world, u, lo, min(lo + FACTS_PER_TX, want), indexed))
            with driver.session(database=database) as session:
                session.execute_write(_run_bound, stmt.text, bound)

        for u in range(world.users):
            # an interrupted earlier run may have loaded whole chunks (one transaction each)
            have_u = max(have, _loaded(driver, database, world.user(u)))
            first = have + (have_u - have) // FACTS_PER_TX * FACTS_PER_TX
            with ThreadPoolExecutor(max_workers=2) as pool:
                list(pool.map(lambda lo, u=u: chunk(u, lo), range(first, want, FACTS_PER_TX)))
            done = (u + 1) * per_user
            rate = done / max(time.monotonic() - started, 1e-9)
            eta = (total - done) / rate
            say(f"  loaded {done:>9,}/{total:,} facts  {rate:,.0f}/s  eta {eta:,.0f}s")
        return
    group = max(1, FACTS_PER_TX // per_user)

    def write(batch: range) -> int:
        if _loaded(driver, database, world.user(batch[-1])) >= want:
            return per_user * len(batch)  # an interrupted earlier run loaded these
        params = [stmt.bind(_facts_for(world, u, have, want, indexed)) for u in batch]
        with driver.session(database=database) as session:

            def work(tx: Any) -> None:
                for bound in params:
                    tx.run(stmt.text, bound).consume()

            session.execute_write(work)
        return per_user * len(batch)

    batches = [range(f, min(f + group, world.users)) for f in range(0, world.users, group)]
    started = time.monotonic()
    done = 0
    next_report = 0.1
    with ThreadPoolExecutor(max_workers=2) as pool:
        for loaded in pool.map(write, batches):
            done += loaded
            if done / total >= next_report or done == total:
                rate = done / max(time.monotonic() - started, 1e-9)
                eta = (total - done) / rate if rate else 0.0
                say(f"  loaded {done:>9,}/{total:,} facts  {rate:,.0f}/s  eta {eta:,.0f}s")
                next_report += 0.1


def _run_bound(tx: Any, text: str, bound: dict[str, Any]) -> None:
    tx.run(text, bound).consume()


def _unit(rng: np.random.Generator) -> list[float]:
    v = rng.standard_normal(DIM)
    unit: list[float] = (v / np.linalg.norm(v)).tolist()
    return unit


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def _line(label: str, values: Sequence[float]) -> str:
    return (
        f"{label}: p50 {_pct(values, 50):6.2f} ms  p95 {_pct(values, 95):6.2f} ms  "
        f"p99 {_pct(values, 99):6.2f} ms  (n={len(values)})"
    )


def measure(
    driver: Driver,
    database: str,
    world: World,
    queries: int,
    k: int,
    exact_max: int,
    seed: int,
    native_topk: bool | None = None,
) -> dict[str, list[float]]:
    """Server time, ``search()`` wall time and client recall time of ``queries`` searches
    (after WARMUP ones: right after a start or a load the JIT and the page cache are
    cold), each for a random user with a random question and vector."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    search = FactSearch(
        driver, database=database, exact_max_facts=exact_max, native_topk=native_topk
    )
    recall = Recall(search, touch=False)
    out: dict[str, list[float]] = {"server": [], "search": [], "trips": []}
    strategies: dict[str, int] = {}
    hits = 0
    for i in range(queries + WARMUP):
        u = rng.randrange(world.users)
        entity = world.entity(u, rng.randrange(ENTITIES_PER_USER))
        text = f"What about {entity.title()} and {' '.join(rng.sample(world.vocab, 3))}?"
        vector = _unit(nrng)
        started = time.perf_counter()
        result = recall.search(text, user_id=world.user(u), k=k, vector=vector, now=NOW)
        elapsed = (time.perf_counter() - started) * 1000
        if i < WARMUP:
            continue  # warm-up
        out["search"].append(elapsed)
        out["server"].append(result.timings.server_ms)
        out["trips"].append(float(result.timings.round_trips))
        strategies[result.strategy] = strategies.get(result.strategy, 0) + 1
        hits += len(result.hits)
        assert all(h.fact.user_id == world.user(u) for h in result.hits)
    say("  " + _line("recall, Neo4j server time        ", out["server"]))
    say("  " + _line("search() end to end, no embedding", out["search"]))
    scan = "hmem.vector.topk" if search.native_topk else "plain Cypher"
    say(
        f"  strategies {strategies} (exact scan: {scan}); "
        f"round trips {sum(out['trips']) / max(1, queries):.2f}; "
        f"mean hits {hits / max(1, queries):.1f} (k={k})"
    )
    return out


def measure_big(
    driver: Driver,
    database: str,
    world: World,
    queries: int,
    k: int,
    args: argparse.Namespace,
    strategy: DenseStrategy,
) -> dict[str, list[float]]:
    """``measure`` for the big users with the given dense strategy (``auto``: what the
    read path picks), then recall@k of that strategy's dense candidates (k of them,
    with its fallback) against the exact scan's, on ``--big-recall-queries`` vectors."""
    rng = random.Random(77)
    nrng = np.random.default_rng(77)
    search = FactSearch(
        driver,
        database=database,
        exact_max_facts=args.exact_max,
        search_min_facts=args.search_min,
        search_overfetch=args.search_overfetch,
    )
    for u in range(world.users):  # sizes known, as in a running service
        search.user_size(world.user(u))
    recall = Recall(search, touch=False)
    out: dict[str, list[float]] = {"server": [], "search": [], "recall": []}
    strategies: dict[str, int] = {}
    for i in range(queries + WARMUP // 4):
        u = rng.randrange(world.users)
        text, vector = world.question(u, rng, nrng)
        started = time.perf_counter()
        result = recall.search(
            text, user_id=world.user(u), k=k, vector=vector, now=NOW, strategy=strategy
        )
        elapsed = (time.perf_counter() - started) * 1000
        if i < WARMUP // 4:
            continue
        out["search"].append(elapsed)
        out["server"].append(result.timings.server_ms)
        strategies[result.strategy] = strategies.get(result.strategy, 0) + 1
        assert all(h.fact.user_id == world.user(u) for h in result.hits)
    say("  " + _line("recall, Neo4j server time        ", out["server"]))
    say("  " + _line("search() end to end, no embedding", out["search"]))
    say(f"  strategies {strategies}")
    fewer = 0
    k_dense = max(2 * k, 20)  # what Recall.search asks for (its SEARCH fetches k_dense x overfetch)
    for _ in range(args.big_recall_queries):
        u = rng.randrange(world.users)
        uid = world.user(u)
        asked = Question(
            uid, vector=world.question(u, rng, nrng)[1], lucene=None, entity_grams=[],
            mode="current", now=NOW, k_dense=k,
        )  # fmt: skip
        exact = {c.id for c in search.candidates(asked, strategy="exact").rows}
        got = search.candidates(replace(asked, k_dense=k_dense), strategy=strategy)
        fewer += got.strategy.endswith("+exact")
        best = sorted(got.rows, key=lambda c: -c.score)[:k]
        out["recall"].append(len({c.id for c in best} & exact) / max(1, len(exact)))
    mean = sum(out["recall"]) / max(1, len(out["recall"]))
    say(
        f"  recall@{k} of the best {k} of the dense candidates (k_dense {k_dense}, "
        f"SEARCH LIMIT {k_dense * search.search_overfetch}) vs the exact scan: mean {mean:.4f}, "
        f"min {min(out['recall'], default=0):.3f} (n={len(out['recall'])}; "
        f"{fewer} fell back to the exact scan)"
    )
    return out


def measure_embedding(model_dir: Path, n: int = 100) -> list[float]:
    if not model_dir.is_dir():
        say(f"query embedding: skipped ({model_dir} absent)")
        return []
    from hmem.extract.local_embed import LocalEmbeddings

    model = LocalEmbeddings(model_dir=model_dir, threads=1)
    questions = [f"Where did Maya live before she moved, question {i}?" for i in range(n)]
    model.embed(questions[:5])
    times = []
    for q in questions:
        started = time.perf_counter()
        model.embed([q])
        times.append((time.perf_counter() - started) * 1000)
    say(_line(f"query embedding ({model_dir.name}, 1 thread)", times))
    return times


def crossover(
    driver: Driver, database: str, world: World, sizes: Sequence[int], k: int, reps: int
) -> None:
    """Exact per-user scan vs the global index with over-fetch, by user size."""
    search = FactSearch(driver, database=database, size_ttl_s=0)
    nrng = np.random.default_rng(7)
    say(f"crossover (dense only, k={k}, {reps} queries each):")
    for size in sizes:
        big = World(1, world.vocab, world.names, prefix=f"bench-big{size}-")
        uid = big.user(0)
        have = _loaded(driver, database, uid)
        if have < size:
            load(driver, database, big, have, size, indexed=True)  # both strategies
        row: dict[str, Any] = {}
        for fetch_factor in (0, 20, 100):
            times, satisfied, overlap = [], 0, 0.0
            for _ in range(reps):
                vector = _unit(nrng)
                asked = Question(
                    uid, vector=vector, lucene=None, entity_grams=[], mode="current", now=NOW,
                    k_dense=k,
                )  # fmt: skip
                exact = search.candidates(asked, strategy="exact")
                if fetch_factor == 0:
                    started = time.perf_counter()
                    search.candidates(asked, strategy="exact")
                    times.append((time.perf_counter() - started) * 1000)
                    continue
                search.index_overfetch = fetch_factor
                search.index_max_fetch = 100_000
                started = time.perf_counter()
                got = search.candidates(asked, strategy="index", fallback=False)
                times.append((time.perf_counter() - started) * 1000)
                ids = {c.id for c in got.rows}
                satisfied += len(ids) >= k
                overlap += len(ids & {c.id for c in exact.rows}) / k
            label = "exact scan" if fetch_factor == 0 else f"index fetch {k * fetch_factor}"
            extra = (
                ""
                if fetch_factor == 0
                else f"  got k own: {satisfied / reps:4.0%}  "
                f"recall@k vs exact: {overlap / reps:4.0%}"
            )
            row[label] = _pct(times, 50)
            say(f"  user with {size:>6,} facts  {label:<18} p50 {_pct(times, 50):7.2f} ms{extra}")


def _corpus(args: argparse.Namespace, size: int) -> Corpus:
    def client() -> Any:
        from hmem.extract.local_embed import LocalEmbeddings

        return LocalEmbeddings(model_dir=args.model_dir, batch_size=256)

    corpus = real_corpus(
        size,
        Path(args.corpus_cache),
        client,
        roots=default_roots(Path(args.data_dir).resolve()),
        model_name=Path(args.model_dir).name,
        say=say,
    )
    if len(corpus) < size:
        raise SystemExit(f"--big-texts real needs {size:,} sentences, found {len(corpus):,}")
    return corpus


def _run(driver: Driver, database: str, statement: str, **params: Any) -> list[dict[str, Any]]:
    stmt = catalog.statement(statement)
    records, _, _ = driver.execute_query(stmt.text, stmt.bind(params), database_=database)
    return [r.data() for r in records]


def schema_without_vector(driver: Driver, database: str) -> bool:
    """Every constraint and index but the vector one; True if the vector index exists
    and is online (one still populating is awaited after the loads, like an absent one)."""
    for name in SCHEMA_STATEMENTS:
        _run(driver, database, name)
    row = show_index(driver, database, VECTOR_INDEX)
    if row is not None and row["state"] != "ONLINE":
        say(f"  note: the vector index is {row['state']}")
    return row is not None and row["state"] == "ONLINE"


def build_vector_index(driver: Driver, database: str, timeout_s: float) -> bool:
    """Create the vector index over the loaded facts and wait until it is ONLINE,
    printing its state every 15 s. False when it is not online within ``timeout_s``."""
    started = time.monotonic()
    stmt = catalog.statement("schema_fact_vector")
    c25 = filtered_search(server_version(driver, database))  # 2026.02+: user_id as filter
    driver.execute_query(
        stmt.text_for(native=False, cypher25=c25), stmt.bind({"dim": DIM}), database_=database
    )
    say(f"  vector index {VECTOR_INDEX!r} created, populating ...")
    while True:
        row = show_index(driver, database, VECTOR_INDEX)
        state = row["state"] if row is not None else "ABSENT"
        took = time.monotonic() - started
        if state == "ONLINE":
            _run(driver, database, "schema_await")  # db.awaitIndexes: everything online
            say(f"  vector index ONLINE after {took:,.0f}s")
            return True
        if state == "FAILED" or took > timeout_s:
            say(f"  vector index {state} after {took:,.0f}s: giving up (timeout {timeout_s:.0f}s)")
            return False
        say(f"  vector index {state} ... {took:,.0f}s")
        time.sleep(15)


@dataclass
class Bench:
    args: argparse.Namespace
    server: LocalNeo4j | None = None
    driver: Driver | None = None

    def connect(self, *, wipe: bool = False) -> Driver:
        """(Re)connect; with ``wipe`` (own server only) stop it and delete its data."""
        args = self.args
        if self.driver is not None:
            self.driver.close()
            self.driver = None
        uri, password = args.uri, args.password
        if uri is None:
            server = self.server or LocalNeo4j(
                Path(args.home),
                bolt_port=args.bolt_port,
                http_port=args.http_port,
                heap=args.heap,
                pagecache=args.pagecache,
                version=args.neo4j_version,
            )
            self.server = server
            if wipe:
                server.stop()
                shutil.rmtree(server.home / "data", ignore_errors=True)
                data = server.home / "data"
                # named from the checkout when it is inside it: reports are committed
                shown = data.relative_to(Path.cwd()) if data.is_relative_to(Path.cwd()) else data
                say(f"  wiped {shown}")
            server.start(timeout=300)
            uri, password = server.bolt_uri, server.password()
        self.driver = GraphDatabase.driver(
            uri, auth=("neo4j", password or ""), notifications_min_severity="OFF"
        )
        return self.driver


def _cell(values: Sequence[float]) -> str:
    return " / ".join(f"{_pct(values, q):.1f}" for q in (50, 95, 99)) + " ms"


def _search_shapes(args: argparse.Namespace, bench: Bench) -> list[Any]:
    """``Memory.search()`` end to end on real data (hmem_bench.latency_search), on the
    same server as the synthetic sizes."""
    shapes = [s for s in args.search_shapes.split(",") if s]
    locomo = Path(args.locomo)
    if not shapes:
        return []
    if not locomo.is_file() or not Path(args.model_dir).is_dir():
        say(f"search shapes: skipped ({locomo} or {args.model_dir} absent)")
        return []
    from hmem_bench.latency_search import run_search_shapes, write_search_report

    if args.uri is None:
        assert bench.server is not None
        uri, password = bench.server.bolt_uri, bench.server.password()
    else:
        uri, password = args.uri, args.password
    config = Config(neo4j_uri=uri, neo4j_password=password, neo4j_database=args.database)
    say("== Memory.search() on real data, embedding included (hmem_bench.latency_search)")
    runs = run_search_shapes(
        config,
        locomo=locomo,
        model_dir=Path(args.model_dir),
        cache_dir=Path(args.embed_cache),
        shapes=shapes,
        http=args.http,
        questions=args.search_questions,
        say=say,
    )
    if args.search_out:  # the command as run, but never the password (reports are committed)
        shown = [
            "***" if before == "--password" else a
            for before, a in zip(["", *sys.argv[1:]], sys.argv[1:], strict=False)
        ]
        shown = [a.split("=", 1)[0] + "=***" if a.startswith("--password=") else a for a in shown]
        write_search_report(
            Path(args.search_out), runs, " ".join(["python -m hmem_bench.latency", *shown])
        )
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hmem_bench.latency", description=__doc__)
    parser.add_argument("--uri", help="an existing Neo4j (default: start one on port 7727)")
    parser.add_argument("--password")
    parser.add_argument("--database", default="neo4j")
    parser.add_argument("--home", default=".hmem/neo4j-bench")
    parser.add_argument("--bolt-port", type=int, default=7727, help="own server's Bolt port")
    parser.add_argument("--http-port", type=int, default=7514, help="own server's HTTP port")
    parser.add_argument(
        "--neo4j-version", default="5.26", help="own server's line: 5.26 (default) or 2026"
    )
    parser.add_argument("--big", default="", help="big-user shape USERSxFACTS, e.g. 10x100000")
    parser.add_argument(
        "--big-texts",
        choices=("random", "real"),
        default="random",
        help="big users' facts: random (uniform random unit vectors, pseudo-word text) or "
        "real (sentences found on this machine, see hmem_bench.corpus, embedded with "
        "--model-dir; questions are held-out sentences of the same corpus)",
    )
    parser.add_argument("--big-held-out", type=int, default=1_000, help="real: questions")
    parser.add_argument("--corpus-cache", default=".hmem/bench-corpus")
    parser.add_argument("--data-dir", default="../shared/data", help="real: LoCoMo/BEAM")
    parser.add_argument("--big-queries", type=int, default=300)
    parser.add_argument("--big-recall-queries", type=int, default=50)
    parser.add_argument(
        "--big-strategy",
        default="auto",
        help="dense strategies for the big users, comma-separated: auto (what the read "
        "path picks), exact, index, search",
    )
    # The read path's own settings by default, so the bench measures what users run.
    defaults = Config.model_fields
    parser.add_argument(
        "--search-min",
        type=int,
        default=defaults["search_filtered_min_facts"].default,
        help="search_min_facts (default: Config's search_filtered_min_facts)",
    )
    parser.add_argument(
        "--search-overfetch",
        type=int,
        default=defaults["search_filtered_overfetch"].default,
        help="search_overfetch (default: Config's search_filtered_overfetch)",
    )
    parser.add_argument("--heap", default="4g")
    parser.add_argument("--pagecache", default="8g")
    parser.add_argument("--users", type=int, default=5_000)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--k", type=int, default=30)
    parser.add_argument("--exact-max", type=int, default=defaults["search_exact_max_facts"].default)
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="own server only: wipe its store first; facts are loaded without the vector "
        "index, which is built (and awaited) after the last size",
    )
    parser.add_argument("--index-timeout", type=float, default=1_800.0)
    parser.add_argument(
        "--no-index",
        action="store_true",
        help="do not build the vector index after the loads (users up to --exact-max facts "
        "never use it; its HNSW build takes ~20 min at 1M facts on 2 cores)",
    )
    parser.add_argument("--crossover", default="", help="big-user sizes, e.g. 1000,4000,16000")
    parser.add_argument("--model-dir", default=str(DEFAULT_MODEL))
    parser.add_argument(
        "--search-shapes",
        default="facts,full,30k",
        help="Memory.search() on real data (hmem_bench.latency_search): LoCoMo 'facts', "
        "'full' (facts + turns), NNk (one user of NN thousand facts), '1m' (a user of the "
        "1M synthetic store, loaded if absent); '' for none",
    )
    parser.add_argument(
        "--search-only", action="store_true", help="only the search shapes, no synthetic sizes"
    )
    parser.add_argument("--http", action="store_true", help="search shapes: HTTP /search too")
    parser.add_argument("--search-questions", type=int, default=150)
    parser.add_argument("--locomo", default="../shared/data/locomo/locomo_dev.jsonl")
    parser.add_argument("--embed-cache", default=".hmem/bench-cache")
    parser.add_argument(
        "--search-out",
        default=None,
        help="folder for search_latency.json / .md (the search shapes' figures)",
    )
    parser.add_argument("--stop", action="store_true", help="stop the started server at the end")
    parser.add_argument(
        "--plain-cypher",
        action="store_true",
        help="exact scans in plain Cypher even when the server has hmem.vector.topk",
    )
    args = parser.parse_args(argv)
    if args.fresh and args.uri is not None:
        parser.error("--fresh wipes the store: only with the bench's own server (no --uri)")

    bench = Bench(args)
    native = False if args.plain_cypher else None
    table: list[tuple[int, str, dict[str, list[float]]]] = []
    try:
        rng = random.Random(42)
        world = World(args.users, _vocabulary(2_000, rng), _vocabulary(400, rng))
        driver = bench.connect(wipe=args.fresh)
        indexed = schema_without_vector(driver, args.database)
        sizes = [] if args.search_only else [int(s) for s in args.sizes.split(",") if s]
        big: World | None = None
        for size in sizes:
            want = size // args.users
            have = min(
                _loaded(driver, args.database, world.user(0)),
                _loaded(driver, args.database, world.user(args.users - 1)),
            )
            say(f"== {want * args.users:,} facts ({want} per user, {args.users:,} users)")
            if indexed and have < want:
                say("  note: the vector index exists, loading pays an HNSW insert per fact")
            started = time.monotonic()
            load(driver, args.database, world, have, want)
            say(f"  load took {time.monotonic() - started:,.0f}s")
            got = measure(
                driver, args.database, world, args.queries, args.k, args.exact_max, size, native
            )
            table.append((want * args.users, "online" if indexed else "absent", got))
        if args.big:
            big_users, big_facts = (int(x) for x in args.big.lower().split("x"))
            big = World(big_users, world.vocab, world.names, prefix="bench-bigu-")
            if args.big_texts == "real":
                big = World(
                    big_users, world.vocab, world.names, prefix="bench-realu-",
                    corpus=_corpus(args, big_users * big_facts + args.big_held_out),
                    span=big_facts,
                )  # fmt: skip
            have = min(
                _loaded(driver, args.database, big.user(0)),
                _loaded(driver, args.database, big.user(big_users - 1)),
            )
            say(f"== big users: {big_users} x {big_facts:,} facts")
            started = time.monotonic()
            load(driver, args.database, big, have, big_facts)
            say(f"  load took {time.monotonic() - started:,.0f}s")
        # Built once, after the bulk load; users up to --exact-max facts never use it
        # (exact scan), so the figures above do not depend on it: re-measured if online.
        if args.no_index and not indexed:
            say("  vector index: not built (--no-index); every user here is scanned exactly")
        elif (
            not indexed
            and (sizes or big is not None)
            and build_vector_index(driver, args.database, args.index_timeout)
        ):
            indexed = True
            if sizes:
                size = sizes[-1]
                got = measure(
                    driver, args.database, world, args.queries, args.k, args.exact_max, size,
                    native,
                )  # fmt: skip
                table.append(((size // args.users) * args.users, "online", got))
        big_rows: list[tuple[str, dict[str, list[float]]]] = []
        if big is not None and bench.driver is not None:
            version = server_version(bench.driver, args.database)
            for strategy in args.big_strategy.split(","):
                say(f"== big users on Neo4j {version}, strategy {strategy}:")
                got = measure_big(
                    bench.driver, args.database, big, args.big_queries, args.k, args,
                    strategy,
                )  # fmt: skip
                big_rows.append((f"{args.big} ({strategy}, Neo4j {version})", got))
        if args.crossover and bench.driver is not None:
            sizes = [int(s) for s in args.crossover.split(",") if s]
            crossover(bench.driver, args.database, world, sizes, args.k, reps=30)
        embed = measure_embedding(Path(args.model_dir))
        searched = _search_shapes(args, bench)
        say("")
        say("| facts | vector index | server p50 / p95 / p99 | search() p50 / p95 / p99 |")
        say("|------:|--------------|------------------------|--------------------------|")
        for facts, state, got in table:
            cells = [
                " / ".join(f"{_pct(got[key], q):.1f}" for q in (50, 95, 99)) + " ms"
                for key in ("server", "search")
            ]
            say(f"| {facts:,} | {state} | {cells[0]} | {cells[1]} |")
        for label, got in big_rows:
            cells = [
                " / ".join(f"{_pct(got[key], q):.1f}" for q in (50, 95, 99)) + " ms"
                for key in ("server", "search")
            ]
            mean = sum(got["recall"]) / max(1, len(got["recall"]))
            say(f"| {label} | recall@{args.k} {mean:.3f} | {cells[0]} | {cells[1]} |")
        for run in searched:
            say(
                f"| {run.shape}: search() {_cell(run.search)}, embedding {_cell(run.embed)}, "
                f"server {_cell(run.server)}"
                + (f", HTTP {_cell(run.http)}" if run.http else "")
                + f"; search() / (embedding + server) {run.ratio_of_p50():.2f} |"
            )
        if embed:
            say(
                "query embedding (apart): p50 / p95 / p99 "
                + " / ".join(f"{_pct(embed, q):.1f}" for q in (50, 95, 99))
                + " ms"
            )
    finally:
        if bench.driver is not None:
            bench.driver.close()
        if bench.server is not None and args.stop:
            bench.server.stop()
    return 0


if __name__ == "__main__":
    with stop_on_signals():  # SIGTERM (hmem bench run stopped) stops the server it started
        sys.exit(main())
