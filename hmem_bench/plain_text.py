"""Plain text keeps time (issue 33), measured without a model: the benchmarks written
as text only, one ``remember(text)`` per message, with no links and no dates from the
data, inference off and on.

- BEAM knowledge updates: updated top 1 and stale first with no supersession from the
  data (inference off: today's text-only figure; on: what the words closed);
- LoCoMo observations (and observations + turns): how many facts inference closed,
  the first 50 with their cue, and R@10 with inference on beside off;
- the time a write takes with inference on and off (p50, p95), and what inference adds
  to the same text's write (``infer_cost``: off and on in turn, under the same load);
- chat calls per write with a model configured (``model_calls``, the fake server).

``python -m hmem_bench.plain_text`` (a running Neo4j, ``HMEM_NEO4J_*``); the vectors
come from the shared MiniLM through the bench's cache, written with each text so the
embedder's time is not in the write times.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hmem.config import Config
from hmem.errors import PolicyRefusal
from hmem.extract.local_embed import LocalEmbeddings
from hmem.memory import Memory
from hmem_bench import beam as beam_bench
from hmem_bench import locomo as locomo_bench
from hmem_bench.data import load_beam, load_locomo
from hmem_bench.embed_cache import CachedEmbedder
from hmem_bench.metrics import evaluate

__all__ = ["beam_text", "infer_cost", "locomo_text", "main", "model_calls", "rule_pairs"]


def _added(on: Sequence[float | None], off: Sequence[float | None]) -> dict[str, float]:
    """What inference adds to a write: the same text's write time with it on minus off
    (the rows are written in the same order both times)."""
    return _percentiles(
        [a - b for a, b in zip(on, off, strict=True) if a is not None and b is not None]
    )


def _percentiles(values: Sequence[float | None]) -> dict[str, float]:
    values = [v for v in values if v is not None]
    if not values:
        return {"p50": 0.0, "p95": 0.0, "n": 0}
    arr = np.asarray(values, dtype=np.float64)
    return {
        "p50": round(float(np.percentile(arr, 50)), 2),
        "p95": round(float(np.percentile(arr, 95)), 2),
        "n": len(values),
    }


def _write(
    memory: Memory,
    user: str,
    rows: Sequence[tuple[str, str, Any, Sequence[float]]],
    infer: bool,
) -> tuple[list[float | None], list[dict[str, Any]]]:
    """``rows``: (fact id, text, observed_at, vector), written one ``remember`` each in
    order. Returns the write times (ms, None for a refused text), row by row, and the
    closures inferred."""
    times: list[float | None] = []
    closures: list[dict[str, Any]] = []
    texts = {fid: text for fid, text, _, _ in rows}
    for fid, text, when, vector in rows:
        started = time.perf_counter()
        try:
            result = memory.remember(
                text, user_id=user, observed_at=when, embedding=list(vector), fact_id=fid,
                source="bench-text", infer=infer,
            )  # fmt: skip
        except PolicyRefusal:
            times.append(None)
            continue
        times.append((time.perf_counter() - started) * 1000)
        for link in result.inferred:
            closures.append(
                {
                    "closed": texts.get(link.old_id, link.old_id)[:160],
                    "by": text[:160],
                    "reason": link.reason.value,
                    "cue": link.cue,
                    "score": link.score,
                }
            )
    return times, closures


#: BEAM's ten chats split in two: the rules were tuned on the dev half only; the test
#: half's answers are scored, never read while tuning.
SPLITS = {"dev": range(0, 5), "test": range(5, 10)}


def beam_split(chats: Sequence[Any], split: str) -> list[Any]:
    if split == "all":
        return list(chats)
    return [c for i, c in enumerate(chats) if i in SPLITS[split]]


def _probe_lines(memory: Memory, corpus: Any, closed: set[str]) -> list[str]:
    """Per probe: the top three messages (u: updated, o: original, ~closed) and which
    originals inference closed."""
    lines = []
    for probe in corpus.usable:
        result = memory.search(probe.question, user_id=corpus.user_id, k=5)
        tags = []
        for hit in result.hits[:3]:
            m = beam_bench._message_id(hit.fact.id)
            kind = "u" if m in probe.updated_ids else "o" if m in probe.original_ids else "-"
            tags.append(f"{kind}{m}{'~' if hit.fact.id in closed else ''}")
        origs = [f"{o}{'~' if corpus.fact_id(o) in closed else ''}" for o in probe.original_ids]
        lines.append(f"{probe.question[:70]} | top {' '.join(tags)} | originals {origs}")
    return lines


def beam_text(
    memory: Memory,
    path: Path,
    embedder: CachedEmbedder,
    split: str = "all",
    settings: Sequence[bool] = (False, True),
) -> dict[str, Any]:
    chats = beam_split(load_beam(path), split)
    out: dict[str, Any] = {"source": str(path), "split": split}
    for infer in settings:
        verdicts: list[dict[str, bool]] = []
        times: list[float | None] = []
        closures: list[dict[str, Any]] = []
        probes: list[str] = []
        for chat in chats:
            tag = "-text-infer" if infer else "-text"
            corpus = beam_bench.build_corpus(
                dataclasses.replace(chat, chat_id=chat.chat_id + tag), embedder
            )
            memory.erase_user(corpus.user_id)
            rows = [
                (corpus.fact_id(m.id), m.text, m.at, v)
                for m, v in zip(corpus.chat.messages, corpus.vectors, strict=True)
                if m.id not in corpus.refused
            ]
            t, c = _write(memory, corpus.user_id, rows, infer)
            times += t
            closures += c
            v, _ = beam_bench.evaluate_hmem(memory, corpus)
            verdicts += v
            closed = {f.id for f in memory.facts(user_id=corpus.user_id, limit=1000)}
            closed = {fid for fid, _, _, _ in rows} - closed
            probes += _probe_lines(memory, corpus, closed)
            print(f"BEAM {chat.chat_id} infer={infer}: {len(rows)} writes", file=sys.stderr)
            memory.erase_user(corpus.user_id)
        out["infer" if infer else "no_infer"] = {
            **beam_bench.summarise(verdicts),
            "closed": len(closures),
            "write_ms": _percentiles(times),
            "closures": closures[:60],
            "probes": probes,
        }
    return out


# Words a change is said with: the texts that hold them are where closures could be
# (the evidence beside the count of closures, which is small on LoCoMo).
CHANGE_WORDS = re.compile(
    r"\b(?:moved|now works|now lives|no longer|used to|changed|switched|quit|new job|"
    r"started working|broke up|passed away|divorc\w*|got a new|adopted|is now|now has|"
    r"not anymore|stopped)\b",
    re.IGNORECASE,
)


def locomo_text(
    memory: Memory, path: Path, embedder: CachedEmbedder, conversations: int
) -> dict[str, Any]:
    convs = load_locomo(path)[:conversations]
    out: dict[str, Any] = {"source": str(path), "conversations": len(convs)}
    for setting in ("facts", "full"):
        per: dict[str, Any] = {}
        for infer in (False, True):
            ranked = []
            times: list[float | None] = []
            closures: list[dict[str, Any]] = []
            all_rows: list[tuple[str, str, Any, Any]] = []
            for conv in convs:
                corpus = locomo_bench.build_corpus(conv, setting, embedder)
                user = locomo_bench.user_id_for(conv.conversation_id, setting)
                memory.erase_user(user)
                dates = {s.session_id: s.date for s in conv.sessions}
                order = sorted(
                    range(len(corpus.items)), key=lambda i: dates[corpus.items[i].session]
                )
                rows = [
                    (
                        corpus.items[i].id,
                        corpus.items[i].text,
                        dates[corpus.items[i].session],
                        corpus.vectors[i],
                    )
                    for i in order
                ]
                t, c = _write(memory, user, rows, infer)
                all_rows += rows
                times += t
                closures += c
                ranked += list(locomo_bench.search_hmem(memory, corpus))
                print(
                    f"LoCoMo {conv.conversation_id} {setting} infer={infer}: {len(rows)} writes",
                    file=sys.stderr,
                )
                memory.erase_user(user)
            scores = evaluate(ranked)
            worded = [t for _, t, _, _ in all_rows if CHANGE_WORDS.search(t)]
            closed_texts = {c["closed"] for c in closures}
            per["infer" if infer else "no_infer"] = {
                "r@10": round(scores.get("k10"), 4),
                "writes": len(all_rows),
                "change_worded": len(worded),
                "change_worded_examples": [
                    {"text": t[:160], "closed_something": t[:160] in {c["by"] for c in closures}}
                    for t in worded[:20]
                ],
                "closed_texts": len(closed_texts),
                "closed": len(closures),
                "write_ms": _percentiles(times),
                "closures": closures[:50],
            }
        out[setting] = per
    return out


def _preload(
    memory: Memory,
    users: Sequence[str],
    path: Path,
    embedder: CachedEmbedder,
    facts: int,
    timed: set[str],
) -> int:
    """Give each of ``users`` the same ``facts`` stored facts before the timed writes:
    LoCoMo dev's texts (observations and turns of all its conversations, the 4th and
    5th first, so conv-26's own texts come last), written with ``remember_many`` in
    batches, no inference, vectors from the bench cache. Returns how many each holds."""
    from hmem.models import EntityRef, FactDraft

    items = [
        item
        for conv in reversed(load_locomo(path))
        for item in locomo_bench.build_items(conv, "full")
        if item.text not in timed  # a timed write must not repeat a stored text
    ][:facts]
    vectors = embedder.matrix([i.text for i in items])
    drafts = [
        FactDraft(
            text=item.text,
            embedding=[float(x) for x in vector],
            entities=[EntityRef(name=name) for name in item.entities],
            source="bench-preload",
        )
        for item, vector in zip(items, vectors, strict=True)
    ]
    written = 0
    for user in users:
        written = 0
        for start in range(0, len(drafts), 200):
            batch = drafts[start : start + 200]
            try:
                memory.remember_many(batch, user_id=user)
                written += len(batch)
            except PolicyRefusal:
                for draft in batch:  # one refused text: the others still go in
                    try:
                        memory.remember_many([draft], user_id=user)
                        written += 1
                    except PolicyRefusal:
                        continue
    return written


def infer_cost(
    memory: Memory,
    embedder: CachedEmbedder,
    path: Path,
    writes: int = 120,
    preload: int = 0,
) -> dict[str, Any]:
    """What inference adds to a write: LoCoMo conv-26's observations, each written
    twice in turn (inference off for one user, on for another), so both writes of a
    text run under the same load of this shared machine; the difference per text.
    ``preload``: both users first hold that many facts (``_preload``), so the
    neighbours a write reads are those of a big user."""
    [conv] = load_locomo(path)[:1]
    corpus = locomo_bench.build_corpus(conv, "facts", embedder)
    dates = {s.session_id: s.date for s in conv.sessions}
    rows = [
        (item.id + "-cost", item.text, dates[item.session], vector)
        for item, vector in zip(corpus.items[:writes], corpus.vectors, strict=False)
    ]
    users = ("bench-text-cost-off", "bench-text-cost-on")
    for user in users:
        memory.erase_user(user)
    timed = {text for _, text, _, _ in rows}
    held = _preload(memory, users, path, embedder, preload, timed) if preload else 0
    off: list[float | None] = []
    on: list[float | None] = []
    for row in rows:
        off += _write(memory, users[0], [row], False)[0]
        on += _write(memory, users[1], [row], True)[0]
    for user in users:
        memory.erase_user(user)
    return {
        "writes": len(rows),
        "stored_facts_before": held,
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "off_ms": _percentiles(off),
        "on_ms": _percentiles(on),
        "added_ms": _added(on, off),
    }


def model_calls(
    config: Config, embedder: CachedEmbedder, path: Path, writes: int = 60
) -> dict[str, Any]:
    """Chat calls per write with a model configured (the bench's fake OpenAI server,
    which counts them): LoCoMo conv-26's first observations written as text, inference
    on. One judging call per write that has neighbours, none per neighbour."""
    from hmem_bench.fake_llm import FakeModelServer

    [conv] = load_locomo(path)[:1]
    corpus = locomo_bench.build_corpus(conv, "facts", embedder)
    dates = {s.session_id: s.date for s in conv.sessions}
    rows = [
        (item.id + "-model", item.text, dates[item.session], vector)
        for item, vector in zip(corpus.items[:writes], corpus.vectors, strict=False)
    ]
    with FakeModelServer(embedding_dim=config.embedding_dim) as fake:
        settings = Config(
            **{**config.model_dump(), "llm_base_url": fake.base_url, "llm_api_key": fake.api_key}
        )
        with Memory(settings, embedder=embedder.client) as memory:
            user = "bench-text-model"
            memory.erase_user(user)
            fake.reset_counts()
            times, _ = _write(memory, user, rows, True)
            memory.erase_user(user)
        return {
            "writes": len(rows),
            "chat_calls": fake.chat_calls,
            "chat_calls_per_write": round(fake.chat_calls / len(rows), 3) if rows else 0.0,
            "by_schema": dict(fake.by_schema),
            "write_ms": _percentiles(times),
        }


def rule_pairs(
    path: Path,
    setting: str,
    conversations: int = 5,
    frames: Any | None = None,
    frame_cosine: float = 0.0,
) -> dict[str, Any]:
    """With no store: every LoCoMo text against every earlier one of its conversation,
    by the rules a write applies to its neighbours (``changes.decide``, then the number
    rule; long texts the number rule only). An upper bound of what inference can close,
    since a write reads only its neighbours; the first 50 listed with their cue. With
    ``frames`` (an embedding function), the masked frames decide too where the words
    name two slots (``hmem.infer.frames``, at ``frame_cosine``), as a write does."""
    from hmem.infer.changes import decide, owner, read_claims
    from hmem.infer.frames import decide_by_frame, frame_candidate
    from hmem.infer.quantities import changed_value, read_quantities
    from hmem.infer.write import MAX_STATEMENT_WORDS, _same_owner

    found: list[dict[str, str]] = []
    writes = 0
    for conv in load_locomo(path)[:conversations]:
        dates = {s.session_id: s.date for s in conv.sessions}
        items = sorted(locomo_bench.build_items(conv, setting), key=lambda i: dates[i.session])
        texts = [i.text for i in items]
        claims = read_claims(texts)
        unit: dict[str, Any] = {}
        if frames is not None and frame_cosine > 0:
            framed = sorted({c.frame for c in claims if c.frame})
            vectors = np.asarray(frames(framed), dtype=np.float64) if framed else np.zeros((0, 1))
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            unit = dict(zip(framed, vectors, strict=True))
        for k, (text, new) in enumerate(zip(texts, claims, strict=True)):
            writes += 1
            numbers_only = len(text.split()) > MAX_STATEMENT_WORDS or text.rstrip().endswith("?")
            quantities = read_quantities(text)
            for old_text, old in zip(texts[:k], claims[:k], strict=True):
                decision = None if numbers_only else decide(new, old)
                if decision is None and unit and not numbers_only and frame_candidate(new, old):
                    cosine = float(unit[new.frame or ""] @ unit[old.frame or ""])
                    if cosine >= frame_cosine:
                        decision = decide_by_frame(new, old, cosine)
                cue = reason = None
                if decision is not None and decision.op == "supersede" and decision.reason:
                    cue, reason = decision.cue, decision.reason.value
                elif decision is None and numbers_only:
                    # a long text: whose each value is, clause by clause (as a write reads it)
                    cue = changed_value(
                        quantities, read_quantities(old_text), _same_owner(text, new, old_text, old)
                    )
                    reason = "contradiction"
                elif (
                    decision is None
                    and not new.added
                    and owner(new) is not None
                    and owner(new) == owner(old)
                ):
                    cue = changed_value(quantities, read_quantities(old_text))
                    reason = "contradiction"
                if cue is not None:
                    found.append(
                        {"closed": old_text[:160], "by": text[:160], "reason": str(reason),
                         "cue": cue}
                    )  # fmt: skip
    return {"setting": setting, "writes": writes, "closures": len(found), "listed": found[:50]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument(
        "--model-dir", type=Path, default=Path("../shared/models/all-MiniLM-L6-v2-onnx")
    )
    parser.add_argument("--cache-dir", type=Path, default=Path(".hmem/bench-cache"))
    parser.add_argument("--locomo-conversations", type=int, default=1)
    parser.add_argument("--skip-locomo", action="store_true")
    parser.add_argument(
        "--cost-preload",
        type=int,
        default=0,
        help="infer_cost's users first hold this many facts (LoCoMo dev texts; 3800)",
    )
    parser.add_argument(
        "--only-cost", action="store_true", help="only infer_cost (with --cost-preload)"
    )
    parser.add_argument("--skip-beam", action="store_true")
    parser.add_argument("--infer", choices=("both", "on", "off"), default="both")
    parser.add_argument(
        "--split", choices=("dev", "test", "all"), default="all", help="BEAM chats 1-5, 6-10"
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument(
        "--pairs", action="store_true", help="only the rules over every LoCoMo pair, no store"
    )
    args = parser.parse_args(argv)
    if args.pairs:
        locomo = args.data / "locomo" / "locomo_dev.jsonl"
        cosine = Config().infer_frame_cosine
        frames = LocalEmbeddings(model_dir=args.model_dir, expected_dim=384).embed
        pairs = [rule_pairs(locomo, s, 5, frames, cosine) for s in ("facts", "full")]
        print(json.dumps(pairs, indent=2))
        return 0
    config = Config()
    config = Config(**{**config.model_dump(), "max_fact_chars": max(config.max_fact_chars, 16_000)})
    local = LocalEmbeddings(model_dir=args.model_dir, expected_dim=config.embedding_dim)
    embedder = CachedEmbedder(local, args.cache_dir)
    results: dict[str, Any] = {}
    with Memory(config, embedder=local) as memory:
        memory.init_schema()
        if not args.skip_beam and not args.only_cost:
            results["beam"] = beam_text(
                memory,
                args.data / "beam" / "beam_100k_dev.jsonl",
                embedder,
                args.split,
                {"both": (False, True), "on": (True,), "off": (False,)}[args.infer],
            )
        if args.only_cost:
            results["infer_cost"] = infer_cost(
                memory,
                embedder,
                args.data / "locomo" / "locomo_dev.jsonl",
                preload=args.cost_preload,
            )
        elif not args.skip_locomo:
            results["infer_cost"] = infer_cost(
                memory,
                embedder,
                args.data / "locomo" / "locomo_dev.jsonl",
                preload=args.cost_preload,
            )
            results["model"] = model_calls(
                config, embedder, args.data / "locomo" / "locomo_dev.jsonl"
            )
            results["locomo"] = locomo_text(
                memory,
                args.data / "locomo" / "locomo_dev.jsonl",
                embedder,
                args.locomo_conversations,
            )
    text = json.dumps(results, indent=2, default=str)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
