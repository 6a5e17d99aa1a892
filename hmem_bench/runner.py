"""``hmem bench run``: every benchmark in one command, results JSON + markdown + PNGs.

The run is repeatable: every user it writes is prefixed ``bench-`` and erased first;
graphiti's groups are prefixed ``bench-graphiti-`` and cleared first; nothing else in
the database is touched. Embeddings are cached under ``.hmem/bench-cache/``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hmem.config import Config
from hmem.localdb import LocalNeo4j
from hmem_bench import beam as beam_bench
from hmem_bench import locomo as locomo_bench
from hmem_bench import runner_steps, speed, storage
from hmem_bench.data import load_beam, load_locomo
from hmem_bench.embed_cache import CachedEmbedder
from hmem_bench.fake_llm import FakeModelServer
from hmem_bench.metrics import Ranked, Scores, evaluate
from hmem_bench.report import write_report

__all__ = ["RunOptions", "run"]


@dataclass
class RunOptions:
    locomo: Path | None
    beam: Path | None
    out: Path
    model_dir: Path
    cache_dir: Path = Path(".hmem/bench-cache")
    graphiti: bool = True
    latency: bool = True
    latency_sizes: str = "10000,100000,1000000"
    latency_queries: int = 200
    search_latency: bool = True  # search() per shape (hmem_bench.latency --search-only)
    search_shapes: str | None = None  # None: hmem_bench.latency's default shapes
    search_questions: int = 150
    writes: bool = True  # remember_many vs bare rows, add() overhead (hmem_bench.write_path)
    write_batches: int = 20
    write_sessions: int = 100
    storage_facts: int = 6000  # written by hmem_bench.storage on a server of its own; 0 skips
    add_sessions: int = 5
    graphiti_questions: int | None = 40  # per conversation: graphiti's search is slow here
    max_questions: int | None = None
    plain_text: bool = True  # BEAM and LoCoMo written as text only (hmem_bench.plain_text)
    plain_text_conversations: int = 1
    command: str = "hmem bench run"
    extra: dict[str, Any] = field(default_factory=dict)


def _bar(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="it", dynamic_ncols=True, file=sys.stderr, leave=True)


def _search_each(
    memory: Any, cs: list[locomo_bench.LocomoCorpus], questions: int, label: str
) -> list[list[Ranked]]:
    """``Memory.search`` over every question of each corpus, with a progress bar."""
    bar = _bar(questions, label)
    out = []
    for corpus in cs:
        mine = []
        for r in locomo_bench.search_hmem(memory, corpus):
            mine.append(r)
            bar.update(1)
        out.append(mine)
    bar.close()
    return out


def _ablation(
    memory: Any, cs: list[locomo_bench.LocomoCorpus], questions: int, setting: str
) -> dict[str, Any]:
    """hmem again with each technique off alone (``locomo_bench.ABLATIONS``)."""
    weights = memory.recall.weights
    backend = memory.recall.search_backend
    share, names_share = backend.entity_max_share, memory.recall.names_share
    out: dict[str, Any] = {}
    try:
        for name, change in locomo_bench.ABLATIONS.items():
            change = dict(change)
            memory.recall.names_share = change.pop("names_share", names_share)
            backend.entity_max_share = change.pop("entity_max_share", share)
            memory.recall.weights = dataclasses.replace(weights, **change)
            per_corpus = _search_each(memory, cs, questions, f"ablation ({setting}): {name}")
            out[name] = _scores([r for mine in per_corpus for r in mine])
    finally:
        memory.recall.weights = weights
        memory.recall.names_share = names_share
        backend.entity_max_share = share
    return out


def _scores(ranked: list[Ranked]) -> dict[str, Any]:
    s: Scores = evaluate(ranked)
    return {"cuts": s.cuts, "latency_ms": s.latency_ms, "questions": s.questions}


def _machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}){mem}, "
        f"Python {platform.python_version()}"
    )


def run(config: Config, options: RunOptions) -> dict[str, Any]:
    """Run everything that has its data; returns the results and writes the report."""
    from hmem.extract.local_embed import LocalEmbeddings
    from hmem.memory import Memory, resolve_password

    began = time.perf_counter()
    results: dict[str, Any] = {
        "meta": {
            "command": options.command,
            "machine": _machine(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "embedding_model": options.model_dir.name,
            # the files this run read, so the report names what it measured on
            "data_files": {
                name: str(path)
                for name, path in (("LoCoMo", options.locomo), ("BEAM", options.beam))
                if path is not None and path.is_file()
            },
            "max_questions": options.max_questions,
        },
        "gaps": [],
    }
    gaps: list[str] = results["gaps"]
    local = LocalEmbeddings(model_dir=options.model_dir, expected_dim=config.embedding_dim)
    results["meta"]["embedding_model"] = local.model_name
    embedder = CachedEmbedder(local, options.cache_dir)
    config = Config(**{**config.model_dump(), "max_fact_chars": max(config.max_fact_chars, 16_000)})
    memory = Memory(config, embedder=local)
    has_search = callable(getattr(memory, "search", None))
    if not has_search:
        gaps.append("Memory.search is not available: the hmem rows are missing, baselines only.")
    try:
        memory.init_schema()
        speed_out: dict[str, Any] = {"notes": []}
        results["speed"] = speed_out
        neo4j_home = Path(config.neo4j_home)
        corpora: dict[str, list[locomo_bench.LocomoCorpus]] = {}

        # -- LoCoMo ---------------------------------------------------------------------
        if options.locomo is not None and options.locomo.is_file():
            conversations = load_locomo(options.locomo)
            if options.max_questions is not None:
                conversations = [
                    type(c)(
                        c.conversation_id,
                        c.speakers,
                        c.sessions,
                        c.questions[: options.max_questions],
                    )
                    for c in conversations
                ]
            texts = [
                i.text
                for c in conversations
                for s in locomo_bench.SETTINGS
                for i in locomo_bench.build_items(c, s)
            ]
            texts += [q.question for c in conversations for q in c.questions]
            bar = _bar(embedder.missing(texts), "embed LoCoMo")
            embedder.matrix(texts, progress=bar.update)
            bar.close()
            for setting in locomo_bench.SETTINGS:
                corpora[setting] = [
                    locomo_bench.build_corpus(c, setting, embedder) for c in conversations
                ]
            total = sum(len(c.items) for cs in corpora.values() for c in cs)
            bar = _bar(total, "ingest LoCoMo")
            ingest_rows = [
                locomo_bench.ingest(memory, c, bar.update) for cs in corpora.values() for c in cs
            ]
            bar.close()
            added = sum(r["added"] for r in ingest_rows)
            seconds = sum(r["seconds"] for r in ingest_rows)
            speed_out["locomo_ingest"] = {
                "facts": added,
                "seconds": seconds,
                "facts_per_s": added / seconds if seconds else None,
                "skipped_duplicates": sum(r["skipped"] for r in ingest_rows),
            }
            settings_out: dict[str, dict[str, Any]] = {}
            ablation: dict[str, dict[str, Any]] = {}
            hmem_by_corpus: dict[str, list[list[Ranked]]] = {}
            questions = sum(len(c.questions) for c in corpora["facts"])
            for setting, cs in corpora.items():
                systems: dict[str, Any] = {}
                if has_search:
                    rankings = _search_each(memory, cs, questions, f"hmem search ({setting})")
                    hmem_by_corpus[setting] = rankings
                    systems["hmem"] = _scores([r for mine in rankings for r in mine])
                    ablation[setting] = _ablation(memory, cs, questions, setting)
                for method in locomo_bench.BASELINES:
                    systems[method] = _scores(
                        [r for c in cs for r in locomo_bench.rank_baseline(c, method)]
                    )
                settings_out[setting] = systems
            results["locomo"] = {
                "source": str(options.locomo),
                "conversations": len(conversations),
                "questions": questions,
                "settings": settings_out,
                "ablation": ablation,
                "ingest": ingest_rows,
                "notes": [
                    "hybrid-numpy = 0.8 dense + 0.1 BM25 + 0.1 entity (the question names the "
                    "speaker), each min-max normalised per question: the design's default "
                    "weights, no database.",
                    f"hmem and graphiti rankings are taken {locomo_bench.DEPTH} deep, one call "
                    "per question; latency is that call as the client sees it (hmem includes "
                    "embedding the query; graphiti is given the query vector).",
                    f"graphiti is searched on {options.graphiti_questions} questions per "
                    "conversation, spread evenly (its search takes most of a second here); "
                    "the row `hmem (graphiti's questions)` scores hmem on exactly those.",
                ],
            }
        else:
            gaps.append(f"LoCoMo data not found at {options.locomo}: skipped.")

        # -- graphiti side by side ------------------------------------------------------
        password = resolve_password(config)
        if options.graphiti and corpora:
            if importlib.util.find_spec("graphiti_core") is None:
                gaps.append(
                    "graphiti-core is not installed (pip install 'hmem[bench]'): no side by side."
                )
            else:
                os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
                # graphiti's driver logs every server notice (missing optional properties)
                logging.getLogger("neo4j").setLevel(logging.ERROR)
                from hmem_bench import graphiti_side

                speakers = sorted(
                    {s for cs in corpora.values() for c in cs for s in c.conversation.speakers}
                )
                vectors = embedder.matrix(speakers)
                speaker_vectors = {
                    s: [float(x) for x in v] for s, v in zip(speakers, vectors, strict=True)
                }
                with FakeModelServer(embedding_dim=config.embedding_dim) as fake:
                    for setting, cs in corpora.items():
                        print(f"graphiti: load + search ({setting})", file=sys.stderr)
                        picks = [
                            locomo_bench.subset_positions(c, options.graphiti_questions) for c in cs
                        ]
                        subsets = [
                            locomo_bench.subset(c, p) for c, p in zip(cs, picks, strict=True)
                        ]
                        ranked, timing = graphiti_side.run_search(
                            subsets,
                            speaker_vectors,
                            uri=config.neo4j_uri,
                            user=config.neo4j_user,
                            password=password,
                            fake=fake,
                        )
                        systems_out = results["locomo"]["settings"][setting]
                        systems_out["graphiti"] = _scores(ranked) | {"load": timing}
                        per_corpus = hmem_by_corpus.get(setting)
                        if per_corpus and options.graphiti_questions is not None:
                            same = [
                                rs[i] for rs, p in zip(per_corpus, picks, strict=True) for i in p
                            ]
                            systems_out["hmem (graphiti's questions)"] = _scores(same)
                    conv = corpora["facts"][0].conversation
                    print(
                        f"graphiti: add_episode on {options.add_sessions} sessions", file=sys.stderr
                    )
                    rows = graphiti_side.count_add_episode_calls(
                        conv,
                        options.add_sessions,
                        uri=config.neo4j_uri,
                        user=config.neo4j_user,
                        password=password,
                        fake=fake,
                    )
                    speed_out.setdefault("model_calls", {})["graphiti add_episode"] = _per_session(
                        rows
                    )
        elif options.graphiti:
            gaps.append("graphiti side by side needs the LoCoMo data.")

        # -- add() with the fake model --------------------------------------------------
        if corpora:
            conv = corpora["facts"][0].conversation
            if callable(getattr(memory, "add", None)):
                with FakeModelServer(embedding_dim=config.embedding_dim) as fake:
                    print(
                        f"hmem add(): {options.add_sessions} sessions with the fake model",
                        file=sys.stderr,
                    )
                    add = speed.add_path(config, conv, options.add_sessions, fake)
                speed_out["add"] = add
                speed_out.setdefault("model_calls", {})["hmem add()"] = _per_session(add["rows"])
            else:
                gaps.append("Memory.add is not available: no add() throughput or model-call count.")
            print("direct writes", file=sys.stderr)
            speed_out["direct_writes"] = speed.direct_writes(memory, corpora["full"])

        # -- issue 38's write goals: remember_many against bare rows, add() overhead ----
        if options.writes:
            runner_steps.writes(config, options.write_sessions, options.write_batches, speed_out)
        else:
            gaps.append("writes skipped (--no-writes).")

        # -- BEAM -----------------------------------------------------------------------
        if options.beam is not None and options.beam.is_file():
            chats = load_beam(options.beam)
            texts = [m.text for c in chats for m in c.messages] + [
                p.question for c in chats for p in c.probes
            ]
            bar = _bar(embedder.missing(texts), "embed BEAM")
            embedder.matrix(texts, progress=bar.update)
            bar.close()
            beams = [beam_bench.build_corpus(c, embedder) for c in chats]
            bar = _bar(sum(len(c.chat.messages) for c in beams), "ingest BEAM")
            for bc in beams:
                beam_bench.ingest(memory, bc, bar.update)
            bar.close()
            verdicts: dict[str, list[dict[str, bool]]] = {}
            latencies: list[float] = []
            if has_search:
                bar = _bar(sum(len(c.usable) for c in beams), "hmem search (BEAM)")
                for bc in beams:
                    v, lat = beam_bench.evaluate_hmem(memory, bc)
                    verdicts.setdefault("hmem", []).extend(v)
                    latencies += lat
                    bar.update(len(v))
                bar.close()
            for bc in beams:
                for name, v in beam_bench.evaluate_baselines(bc).items():
                    verdicts.setdefault(name, []).extend(v)
            structural = [
                ok for corpus in beams for ok in beam_bench.asof_structural(memory, corpus)
            ]
            results["beam"] = {
                "source": str(options.beam),
                "chats": len(beams),
                "probes": sum(len(c.usable) for c in beams),
                "excluded": sum(c.excluded for c in beams),
                "refused_messages": sum(len(c.refused) for c in beams),
                "systems": {name: beam_bench.summarise(v) for name, v in verdicts.items()},
                "asof_structural": sum(structural) / len(structural) if structural else None,
                "hmem_latency_ms": sorted(latencies)[len(latencies) // 2] if latencies else None,
                "notes": [
                    "bm25 and dense rank every message with no notion of supersession (a store "
                    "without it); dense+supersedes is the same graph logic in numpy: current "
                    "messages only, a stale hit bringing its successor in at its rank.",
                    "The probes' original ids come from the data as published; some point at "
                    "messages that do not state the old value, which caps every system.",
                ],
            }
        else:
            gaps.append(f"BEAM data not found at {options.beam}: skipped.")

        # -- plain text: the data as text only, inference off and on (issue 33) ---------
        if options.plain_text and options.beam is not None and options.beam.is_file():
            from hmem_bench import plain_text

            print("plain text: BEAM and LoCoMo as text only, infer off/on", file=sys.stderr)
            results["plain_text"] = {"beam": plain_text.beam_text(memory, options.beam, embedder)}
            if options.locomo is not None and options.locomo.is_file():
                results["plain_text"]["locomo"] = plain_text.locomo_text(
                    memory, options.locomo, embedder, options.plain_text_conversations
                )
                results["plain_text"]["infer_cost"] = plain_text.infer_cost(
                    memory, embedder, options.locomo
                )
                results["plain_text"]["model"] = plain_text.model_calls(
                    config, embedder, options.locomo
                )

        speed_out["neo4j_memory"] = speed.neo4j_memory(
            memory._driver, config.neo4j_database, neo4j_home
        )
    finally:
        memory.shutdown()
        embedder.close()

    # -- recall latency at scale, search() per shape (hmem_bench.latency, own Neo4j) ----
    if options.latency:
        runner_steps.latency(options.latency_sizes, options.latency_queries, results["speed"], gaps)
    else:
        gaps.append("recall latency skipped (--no-latency).")
    if options.search_latency:
        runner_steps.search_latency(
            options.out,
            options.search_shapes,
            options.search_questions,
            results["speed"],
            gaps,
        )
    else:
        gaps.append("search latency per shape skipped (--no-search-latency).")

    # -- bytes per fact (hmem_bench.storage: a fresh server of its own) ---------------------
    # Not the growth of the database used above: Neo4j preallocates its store files, so a
    # fresh store grows by nothing over the LoCoMo ingest and a used one by anything.
    if not options.storage_facts:
        gaps.append("bytes per fact skipped (--storage-facts 0).")
    elif options.locomo is None or not options.locomo.is_file():
        gaps.append("bytes per fact skipped: it writes LoCoMo's observations, not found.")
    elif runner_steps.port_in_use(storage.BOLT_PORT):
        gaps.append(
            f"bytes per fact skipped: port {storage.BOLT_PORT} (hmem_bench.storage's own Neo4j) is "
            "in use by another run; run `python -m hmem_bench.storage` alone."
        )
    else:
        print(
            f"bytes per fact over {options.storage_facts:,} facts (hmem_bench.storage)",
            file=sys.stderr,
        )
        server = LocalNeo4j(storage.HOME, bolt_port=storage.BOLT_PORT, http_port=storage.HTTP_PORT)
        try:
            results["speed"]["storage"] = storage.measure(
                server, options.locomo, options.storage_facts, config
            )
        finally:
            server.stop()

    results["meta"]["wall_seconds"] = time.perf_counter() - began
    results["meta"]["options"] = {k: str(v) for k, v in asdict(options).items()}
    write_report(results, options.out)
    return results


def _per_session(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = max(len(rows), 1)
    return {
        "sessions": len(rows),
        "chat_calls_per_session": sum(r["chat_calls"] for r in rows) / n,
        "embedding_calls_per_session": sum(r["embedding_calls"] for r in rows) / n,
        "seconds_per_session": sum(r["seconds"] for r in rows) / n,
        "facts_given_per_session": sum(r["facts_given"] for r in rows) / n,
        "rows": rows,
    }
