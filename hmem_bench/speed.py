"""Speed and cost on this machine: direct-write throughput, ``add()`` with the fake
model server (throughput and model calls per session), store bytes per fact, and the
Neo4j server's memory. Recall latency at 10k / 100k / 1M facts is
``hmem_bench.latency``'s job; the report runner calls it.

The write-path figures alone (LoCoMo ingest, ``remember_many``, ``remember``, ``add()``)
against the configured server, without the retrieval benchmarks::

    python -m hmem_bench.speed [--data ../shared/data] [--add-sessions 5]
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hmem.models import Category, EntityRef, FactDraft
from hmem_bench.data import Conversation
from hmem_bench.fake_llm import FakeModelServer, SessionScript
from hmem_bench.locomo import LocomoCorpus
from hmem_bench.queries import query

__all__ = ["add_path", "direct_writes", "locomo_ingest", "main", "neo4j_memory"]


def direct_writes(
    memory: Any, corpora: Sequence[LocomoCorpus], *, batch: int = 100, singles: int = 100
) -> dict[str, Any]:
    """Facts per second through ``remember_many`` (batches) and ``remember`` (one by
    one), with precomputed vectors: the store's cost, not the embedder's. Every item of
    ``corpora`` is written to one user (LoCoMo's full setting: ~5,000 facts, so the
    batched figure is timed over seconds, not a tenth of one)."""
    user = "bench-speed-direct"
    memory.erase_user(user)
    date = corpora[0].conversation.sessions[0].date
    items = [pair for c in corpora for pair in zip(c.items, c.vectors, strict=True)]
    drafts = [
        FactDraft(
            id=f"{user}:{i}",
            text=item.text,
            category=Category.SEMANTIC,
            valid_from=date,
            known_from=date,
            entities=[EntityRef(name=n, type="person") for n in item.entities],
            embedding=[float(x) for x in vector],
        )
        for i, (item, vector) in enumerate(items)
    ]
    many, one = drafts[2 * singles :], drafts[:singles]
    inferred = drafts[singles : 2 * singles]
    started = time.perf_counter()
    for start in range(0, len(many), batch):
        memory.remember_many(many[start : start + batch], user_id=user, observed_at=date)
    many_s = time.perf_counter() - started

    def singly(part: Sequence[FactDraft], infer: bool | None) -> float:
        started = time.perf_counter()
        for d in part:
            memory.remember(
                d.text,
                user_id=user,
                observed_at=date,
                embedding=d.embedding,
                fact_id=d.id,
                entities=[e.name for e in d.entities],
                infer=infer,
            )
        return time.perf_counter() - started

    # infer=False: the store's cost, as the batches; None (the default for a text with
    # no dates or links) adds reading changes from the words against the user's
    # neighbours among the ~5,000 facts written above
    one_s = singly(one, False)
    inferred_s = singly(inferred, None)
    memory.erase_user(user)
    return {
        "batch_size": batch,
        "batched_facts": len(many),
        "batched_facts_per_s": len(many) / many_s,
        "single_facts": len(one),
        "single_facts_per_s": len(one) / one_s,
        "single_ms_per_fact": 1000 * one_s / len(one),
        "single_infer_facts_per_s": len(inferred) / inferred_s,
        "single_infer_ms_per_fact": 1000 * inferred_s / len(inferred),
    }


def add_path(
    config: Any, conv: Conversation, sessions: int, fake: FakeModelServer
) -> dict[str, Any]:
    """``Memory.add`` per LoCoMo session, the fake model answering with the session's
    observations; model calls, embedding calls and seconds per session."""
    from hmem.memory import Memory

    user = f"bench-add-{conv.conversation_id}"
    with tempfile.TemporaryDirectory() as tmp:
        settings = type(config)(
            **{
                **config.model_dump(),
                "llm_base_url": fake.base_url,
                "llm_api_key": fake.api_key,
                "llm_model": "fake",
                "embed_provider": "openai",
                "embed_base_url": fake.base_url,
                "embed_api_key": fake.api_key,
                "embed_model": "fake-embed",
                # This user's vectors come from the fake on purpose, in a store whose
                # other (LoCoMo) users were embedded with the local model.
                "embed_model_check": False,
                "queue_path": Path(tmp) / "queue.sqlite3",
            }
        )
        rows: list[dict[str, Any]] = []
        with Memory(settings) as memory:
            memory.erase_user(user)
            started = time.perf_counter()
            for session in conv.sessions[:sessions]:
                fake.script = SessionScript(
                    list(conv.speakers), [(o.speaker, o.text) for o in session.observations]
                )
                fake.reset_counts()
                t0 = time.perf_counter()
                result = memory.add(
                    [{"role": "user", "content": f"{t.speaker}: {t.text}"} for t in session.turns],
                    user_id=user,
                    observed_at=session.date,
                    session_id=f"{conv.conversation_id}-s{session.session_id}",
                )
                rows.append(
                    {
                        "session": session.session_id,
                        "facts_given": len(session.observations),
                        "added": len(result.added),
                        "chat_calls": fake.chat_calls,
                        "embedding_calls": fake.embedding_calls,
                        "by_schema": dict(fake.by_schema),
                        "seconds": time.perf_counter() - t0,
                    }
                )
            elapsed = time.perf_counter() - started
            memory.erase_user(user)
    n = max(len(rows), 1)
    return {
        "sessions": len(rows),
        "sessions_per_s": len(rows) / elapsed if elapsed else 0.0,
        "facts_per_s": sum(r["added"] for r in rows) / elapsed if elapsed else 0.0,
        "chat_calls_per_session": sum(r["chat_calls"] for r in rows) / n,
        "embedding_calls_per_session": sum(r["embedding_calls"] for r in rows) / n,
        "rows": rows,
    }


def neo4j_memory(driver: Any, database: str, neo4j_home: Path) -> dict[str, Any]:
    """Heap in use (JMX, when the server allows it) and the server process's RSS."""
    out: dict[str, Any] = {}
    try:
        records, _, _ = driver.execute_query(query("neo4j_heap"), database_=database)
        heap = records[0]["heap"] if records else None
        if heap:
            out["heap_used_bytes"] = int(heap["used"])
            out["heap_committed_bytes"] = int(heap["committed"])
            out["heap_max_bytes"] = int(heap["max"])
    except Exception as exc:
        out["jmx_error"] = type(exc).__name__
    for pid_file in (neo4j_home / "run" / "neo4j.pid", neo4j_home / "run" / "hmem-neo4j.pid"):
        try:
            pid = int(pid_file.read_text().strip())
            status = Path(f"/proc/{pid}/status").read_text()
        except (OSError, ValueError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                out["rss_bytes"] = int(line.split()[1]) * 1024
                break
        if "rss_bytes" in out:
            break
    return out


def locomo_ingest(memory: Any, corpora: list[LocomoCorpus], tick: Any = None) -> dict[str, Any]:
    """The LoCoMo corpora written through ``remember_many``, one call per session."""
    from hmem_bench.locomo import ingest

    rows = [ingest(memory, c, tick) for c in corpora]
    added = sum(r["added"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    return {
        "facts": added,
        "seconds": seconds,
        "facts_per_s": added / seconds if seconds else None,
        "skipped_duplicates": sum(r["skipped"] for r in rows),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> None:
    import argparse
    import json

    from hmem.config import Config
    from hmem.extract.local_embed import LocalEmbeddings
    from hmem.memory import Memory
    from hmem_bench import locomo
    from hmem_bench.data import load_locomo
    from hmem_bench.embed_cache import CachedEmbedder

    parser = argparse.ArgumentParser(description="hmem write-path speed (LoCoMo, direct, add)")
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--model-dir", default="../shared/models/all-MiniLM-L6-v2-onnx")
    parser.add_argument("--cache-dir", default=".hmem/bench-cache")
    parser.add_argument("--add-sessions", type=int, default=5)
    parser.add_argument("--batch", type=int, default=100, help="remember_many batch size")
    args = parser.parse_args(argv)
    config = Config()
    config = Config(**{**config.model_dump(), "max_fact_chars": max(config.max_fact_chars, 16_000)})
    local = LocalEmbeddings(model_dir=args.model_dir, expected_dim=config.embedding_dim)
    embedder = CachedEmbedder(local, args.cache_dir)
    conversations = load_locomo(Path(args.data) / "locomo" / "locomo_dev.jsonl")
    corpora = {
        setting: [locomo.build_corpus(c, setting, embedder) for c in conversations]
        for setting in locomo.SETTINGS
    }
    out: dict[str, Any] = {}
    with Memory(config, embedder=local) as memory:
        memory.init_schema()
        out["locomo_ingest"] = locomo_ingest(memory, [c for cs in corpora.values() for c in cs])
        del out["locomo_ingest"]["rows"]
        out["direct_writes"] = direct_writes(memory, corpora["full"], batch=args.batch)
        if args.add_sessions:
            with FakeModelServer(embedding_dim=config.embedding_dim) as fake:
                add = add_path(config, corpora["facts"][0].conversation, args.add_sessions, fake)
            out["add"] = {k: v for k, v in add.items() if k != "rows"}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
