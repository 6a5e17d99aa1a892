"""LoCoMo recall of ``Memory.search`` alone: the report's hmem rows (R@5 / R@10 / R@30 of
the facts and facts + turns settings), without its baselines, ablations, BEAM or
graphiti, so a change of the read path can be checked against the report in minutes.

    python -m hmem_bench.search_quality [--locomo PATH] [--model-dir DIR]

The same corpora, ingest and ranking as ``hmem bench run`` (hmem_bench.runner): every
conversation written through ``Memory.remember_many`` for its bench user (erased
first), then every question searched once, k = DEPTH, no token cap. Neo4j is the
configured one (``HMEM_NEO4J_*``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from hmem_bench import locomo as locomo_bench
from hmem_bench.data import load_locomo
from hmem_bench.embed_cache import CachedEmbedder
from hmem_bench.metrics import Ranked, evaluate

__all__ = ["main"]

CUTS = ("k5", "k10", "k30")


def main(argv: Sequence[str] | None = None) -> int:
    from hmem.config import Config
    from hmem.extract.local_embed import LocalEmbeddings
    from hmem.memory import Memory

    parser = argparse.ArgumentParser(prog="python -m hmem_bench.search_quality")
    parser.add_argument("--locomo", default="../shared/data/locomo/locomo_dev.jsonl")
    parser.add_argument("--model-dir", default="../shared/models/all-MiniLM-L6-v2-onnx")
    parser.add_argument("--embed-cache", default=".hmem/bench-cache")
    args = parser.parse_args(argv)
    config = Config()
    local = LocalEmbeddings(model_dir=Path(args.model_dir), expected_dim=config.embedding_dim)
    embedder = CachedEmbedder(local, args.embed_cache)
    config = Config(**{**config.model_dump(), "max_fact_chars": max(config.max_fact_chars, 16_000)})
    memory = Memory(config, embedder=local)
    try:
        memory.init_schema()
        conversations = load_locomo(Path(args.locomo))
        for setting in locomo_bench.SETTINGS:
            ranked: list[Ranked] = []
            for conv in conversations:
                corpus = locomo_bench.build_corpus(conv, setting, embedder)
                locomo_bench.ingest(memory, corpus)
                ranked.extend(locomo_bench.search_hmem(memory, corpus))
            scores = evaluate(ranked)
            cells = "  ".join(f"R@{c[1:]} {scores.get(c):.3f}" for c in CUTS)
            print(f"LoCoMo {setting}: {cells}  ({len(ranked)} questions)", flush=True)
        memory.recall.flush()
    finally:
        memory.shutdown()
        embedder.close()
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
