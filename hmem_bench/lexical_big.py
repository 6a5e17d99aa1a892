"""The user's own BM25 on one big user: search server time, lexical + entity only.

One user of ``--facts`` facts (LoCoMo dev's turns, repeated with a numbered suffix so no
two are equal, each turn's speaker as its entity, the session date as both times) is
searched with the first ``--questions`` LoCoMo dev questions, k = 10, no embedder; the
second of two passes is reported (server time of the search's statements, p50 / p95,
and the client's wall time). The user is loaded once and kept (``--reload`` to load it
again); ``--erase`` erases it at the end::

    python -m hmem_bench.lexical_big [--data ../shared/data] [--facts 20000] [--questions 100]

``--locomo`` instead: LoCoMo dev R@5/10/30 (both settings, every question of categories
1-4, ``Memory.search`` at k = 100 as ``hmem bench run`` does, local embeddings cached in
``.hmem/bench-cache``), to check that a change of the lexical path keeps recall::

    python -m hmem_bench.lexical_big --locomo [--model-dir ../shared/models/all-MiniLM-L6-v2-onnx]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from hmem import Config, Memory
from hmem.models import Category, EntityRef, FactDraft
from hmem_bench.data import load_locomo

__all__ = ["load_user", "main", "measure"]

_BATCH = 1_000


def load_user(memory: Memory, user_id: str, data: Path, facts: int) -> float:
    """Write ``facts`` turns for ``user_id`` (erased first); returns the seconds taken."""
    conversations = load_locomo(data / "locomo" / "locomo_dev.jsonl")
    turns = [
        (t.speaker, f"{t.speaker}: {t.text}", s.date)
        for c in conversations
        for s in c.sessions
        for t in s.turns
    ]
    memory.erase_user(user_id)
    started = time.perf_counter()
    drafts: list[FactDraft] = []
    latest = turns[0][2]
    for n in range(facts):
        speaker, text, date = turns[n % len(turns)]
        repeat = n // len(turns)
        latest = max(latest, date)
        drafts.append(
            FactDraft(
                text=text if repeat == 0 else f"{text} ({repeat})",
                category=Category.EPISODIC,
                valid_from=date,
                known_from=date,
                entities=[EntityRef(name=speaker, type="person")],
            )
        )
        if len(drafts) == _BATCH or n == facts - 1:
            memory.store.write(user_id, drafts, observed_at=latest)
            drafts = []
    return time.perf_counter() - started


def measure(memory: Memory, user_id: str, questions: list[str]) -> dict[str, float]:
    """Two passes over ``questions``; the second pass's server and wall milliseconds."""
    server: list[float] = []
    wall: list[float] = []
    for _ in range(2):
        server, wall = [], []
        for question in questions:
            started = time.perf_counter()
            result = memory.search(question, user_id=user_id, k=10)
            wall.append((time.perf_counter() - started) * 1000)
            server.append(result.timings.server_ms)
    return {
        "server_p50_ms": round(float(np.percentile(server, 50)), 1),
        "server_p95_ms": round(float(np.percentile(server, 95)), 1),
        "wall_p50_ms": round(float(np.percentile(wall, 50)), 1),
        "wall_p95_ms": round(float(np.percentile(wall, 95)), 1),
    }


def locomo_recall(data: Path, model_dir: Path) -> dict[str, dict[str, float]]:
    """R@5/10/30 of ``Memory.search`` on LoCoMo dev, per setting (facts, full)."""
    from hmem.extract.local_embed import LocalEmbeddings
    from hmem_bench import locomo as locomo_bench
    from hmem_bench.embed_cache import CachedEmbedder
    from hmem_bench.metrics import Ranked, evaluate

    conversations = load_locomo(data / "locomo" / "locomo_dev.jsonl")
    local = LocalEmbeddings(model_dir=model_dir)
    embedder = CachedEmbedder(local, Path(".hmem/bench-cache"))
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(queue_path=Path(tmp) / "queue.sqlite3", max_fact_chars=16_000)
        with Memory(config, embedder=local) as memory:
            memory.init_schema()
            for setting in locomo_bench.SETTINGS:
                corpora = [locomo_bench.build_corpus(c, setting, embedder) for c in conversations]
                ranked: list[Ranked] = []
                for corpus in corpora:
                    locomo_bench.ingest(memory, corpus)
                    ranked.extend(locomo_bench.search_hmem(memory, corpus))
                scores = evaluate(ranked)
                out[setting] = {cut: round(scores.get(cut), 4) for cut in ("k5", "k10", "k30")}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--reload", action="store_true")
    parser.add_argument("--erase", action="store_true")
    parser.add_argument("--locomo", action="store_true")
    parser.add_argument(
        "--model-dir", type=Path, default=Path("../shared/models/all-MiniLM-L6-v2-onnx")
    )
    args = parser.parse_args(argv)
    if args.locomo:
        print(json.dumps(locomo_recall(args.data, args.model_dir)))
        return
    user_id = f"bench-lexical-big-{args.facts}"
    conversations = load_locomo(args.data / "locomo" / "locomo_dev.jsonl")
    questions = [
        q.question for c in conversations for q in c.questions if q.category in (1, 2, 3, 4)
    ][: args.questions]
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(embed_provider="none", queue_path=Path(tmp) / "queue.sqlite3")
        with Memory(config) as memory:
            memory.init_schema()
            loaded = None
            if args.reload or memory.store.counts(user_id)["facts"] != args.facts:
                loaded = round(load_user(memory, user_id, args.data, args.facts), 1)
            report = {"facts": args.facts, "questions": len(questions), "load_s": loaded}
            report |= measure(memory, user_id, questions)
            if args.erase:
                memory.erase_user(user_id)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
