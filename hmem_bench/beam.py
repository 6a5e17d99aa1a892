"""BEAM knowledge updates: does the updated value come back, and the stale one not?

Each chat is its own user; its user messages are written in order as facts (the
message's date anchor as valid and known time), and each knowledge-update probe
turns into SUPERSEDES edges from the probe's updated message to its original ones.
Then every probe question is searched:

- updated in top 1 / top 5: a message holding the new value is ranked there;
- stale first: an original (superseded) message is ranked first;
- walk adds: probes whose updated message reaches the top 5 only through the
  one-hop SUPERSEDES walk (a stale hit bringing its successor along);
- as-of correct: searching as of just before the update returns the original among
  the top 5 and not the update (what was believed then).

Flat baselines (BM25 and dense over every message, no supersession) show what a store
without supersession returns; ``dense+supersedes`` is the same graph logic in numpy.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from hmem.errors import PolicyRefusal
from hmem.extract.policy import require_allowed
from hmem.models import Category, FactDraft, SupersedeReason, SupersedeTarget
from hmem_bench.data import BeamChat, BeamProbe
from hmem_bench.embed_cache import CachedEmbedder
from hmem_bench.textrank import BM25

__all__ = ["BeamCorpus", "build_corpus", "evaluate_baselines", "evaluate_hmem", "ingest"]

Matrix = npt.NDArray[np.float32]
METRICS = ("updated_top1", "updated_top5", "stale_first", "walk_adds", "asof_correct")


def user_id_for(chat_id: str) -> str:
    return "bench-beam-" + "".join(c if c.isalnum() else "-" for c in chat_id.casefold())


@dataclass
class BeamCorpus:
    chat: BeamChat
    vectors: Matrix
    question_vectors: Matrix
    # new message id -> the original ids it supersedes
    supersedes: dict[int, list[int]] = field(default_factory=dict)
    usable: list[BeamProbe] = field(default_factory=list)
    excluded: int = 0
    refused: set[int] = field(default_factory=set)

    @property
    def user_id(self) -> str:
        return user_id_for(self.chat.chat_id)

    def fact_id(self, message_id: int) -> str:
        return f"{self.user_id}:m{message_id}"

    @property
    def successor(self) -> dict[int, int]:
        return {old: new for new, olds in self.supersedes.items() for old in olds}


def refused_ids(chat: BeamChat) -> set[int]:
    """Messages hmem's write policy refuses (credentials and the like): never stored."""
    refused = set()
    for m in chat.messages:
        try:
            require_allowed(m.text)
        except PolicyRefusal:
            refused.add(m.id)
    return refused


def plan_supersession(
    chat: BeamChat, refused: set[int] | frozenset[int] = frozenset()
) -> tuple[dict[int, list[int]], list[BeamProbe], int]:
    """SUPERSEDES edges from each usable probe: the earliest updated message replaces
    each original sent before it. A probe whose update is also an original (the same
    message), or whose originals are already replaced, is excluded."""
    order = {m.id: i for i, m in enumerate(chat.messages) if m.id not in refused}
    edges: dict[int, list[int]] = {}
    closed: set[int] = set()
    usable: list[BeamProbe] = []
    excluded = 0
    for probe in chat.probes:
        updated = [u for u in probe.updated_ids if u in order]
        if not updated:
            excluded += 1
            continue
        new = min(updated, key=order.__getitem__)
        olds = [
            o
            for o in probe.original_ids
            if o in order and order[o] < order[new] and o not in closed and o not in updated
        ]
        if not olds:
            excluded += 1
            continue
        edges.setdefault(new, []).extend(olds)
        closed.update(olds)
        usable.append(probe)
    return edges, usable, excluded


def build_corpus(chat: BeamChat, embedder: CachedEmbedder) -> BeamCorpus:
    vectors = embedder.matrix([m.text for m in chat.messages])
    refused = refused_ids(chat)
    edges, usable, excluded = plan_supersession(chat, refused)
    qvecs = (
        embedder.matrix([p.question for p in usable])
        if usable
        else np.zeros((0, embedder.dim), np.float32)
    )
    return BeamCorpus(chat, vectors, qvecs, edges, usable, excluded, refused)


def ingest(
    memory: Any, corpus: BeamCorpus, tick: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Write the messages in order; a batch is flushed before a message that replaces
    one still pending, so every SUPERSEDES target exists when it is named."""
    user = corpus.user_id
    memory.erase_user(user)
    pending: list[FactDraft] = []
    pending_ids: set[int] = set()
    added = 0

    def flush() -> None:
        nonlocal added
        if pending:
            result = memory.remember_many(
                list(pending),
                user_id=user,
                observed_at=max(d.known_from for d in pending if d.known_from),
            )
            added += len(result.added)
            if tick is not None:
                tick(len(pending))
            pending.clear()
            pending_ids.clear()

    started = time.perf_counter()
    for message, vector in zip(corpus.chat.messages, corpus.vectors, strict=True):
        if message.id in corpus.refused:
            continue
        olds = corpus.supersedes.get(message.id, [])
        if pending_ids & set(olds) or len(pending) >= 50:
            flush()
        pending.append(
            FactDraft(
                id=corpus.fact_id(message.id),
                text=message.text,
                category=Category.SEMANTIC,
                valid_from=message.at,
                known_from=message.at,
                embedding=[float(x) for x in vector],
                supersedes=[
                    SupersedeTarget(
                        target_id=corpus.fact_id(o), reason=SupersedeReason.CONTRADICTION
                    )
                    for o in olds
                ],
                source=f"beam:{message.id}",
            )
        )
        pending_ids.add(message.id)
    flush()
    return {"user_id": user, "added": added, "seconds": time.perf_counter() - started}


# -- scoring ---------------------------------------------------------------------------


def _judge(ranked: list[int], probe: BeamProbe) -> dict[str, bool]:
    updated, original = set(probe.updated_ids), set(probe.original_ids) - set(probe.updated_ids)
    return {
        "updated_top1": bool(ranked[:1]) and ranked[0] in updated,
        "updated_top5": bool(updated & set(ranked[:5])),
        "stale_first": bool(ranked[:1]) and ranked[0] in original,
    }


def _update_time(corpus: BeamCorpus, probe: BeamProbe) -> Any:
    at = {m.id: m.at for m in corpus.chat.messages}
    return min(at[u] for u in probe.updated_ids if u in at)


def evaluate_baselines(corpus: BeamCorpus) -> dict[str, list[dict[str, bool]]]:
    """Per system, one verdict dict per usable probe."""
    ids = [m.id for m in corpus.chat.messages]
    at = [m.at for m in corpus.chat.messages]
    bm25 = BM25([m.text for m in corpus.chat.messages])
    successor = corpus.successor
    closed = set(successor)
    out: dict[str, list[dict[str, bool]]] = {"bm25": [], "dense": [], "dense+supersedes": []}
    for probe, qvec in zip(corpus.usable, corpus.question_vectors, strict=True):
        dense = corpus.vectors @ qvec
        flat = [ids[i] for i in np.argsort(-dense, kind="stable")]
        lexical = [ids[i] for i in np.argsort(-bm25.scores(probe.question), kind="stable")]
        out["bm25"].append(_judge(lexical, probe) | {"walk_adds": False, "asof_correct": False})
        out["dense"].append(_judge(flat, probe) | {"walk_adds": False, "asof_correct": False})
        current = [i for i in flat if i not in closed]
        walked: list[int] = []
        for i in flat:  # a stale hit brings its successor in at its own rank
            nxt = successor.get(i, i) if i in closed else i
            while nxt in closed:
                nxt = successor[nxt]
            if nxt not in walked:
                walked.append(nxt)
        verdict = _judge(walked, probe)
        verdict["walk_adds"] = (
            verdict["updated_top5"] and not _judge(current, probe)["updated_top5"]
        )
        before = _update_time(corpus, probe) - timedelta(seconds=1)
        visible = [i for i, when in zip(ids, at, strict=True) if when <= before]
        then = [i for i in flat if i in set(visible)]
        updated = set(probe.updated_ids)
        verdict["asof_correct"] = bool(set(probe.original_ids) & set(then[:5])) and not (
            updated & set(then[:5])
        )
        out["dense+supersedes"].append(verdict)
    return out


def _message_id(fact_id: str) -> int | None:
    tail = fact_id.rsplit(":m", 1)
    return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else None


def evaluate_hmem(memory: Any, corpus: BeamCorpus) -> tuple[list[dict[str, bool]], list[float]]:
    """Verdicts from ``Memory.search`` (current by default, then ``as_of`` before the
    update), and the latencies of the current-time calls in ms."""
    verdicts: list[dict[str, bool]] = []
    latencies: list[float] = []
    for probe in corpus.usable:
        started = time.perf_counter()
        result = memory.search(probe.question, user_id=corpus.user_id, k=30)
        latencies.append((time.perf_counter() - started) * 1000)
        ranked = [m for h in result.hits if (m := _message_id(h.fact.id)) is not None]
        verdict = _judge(ranked, probe)
        # The walk's gift: the updated hit arrives with the stale value as its one-hop
        # predecessor, so the context can say "now X (before: Y)".
        originals = {corpus.fact_id(o) for o in probe.original_ids}
        updated = {corpus.fact_id(u) for u in probe.updated_ids}
        verdict["walk_adds"] = any(
            h.fact.id in updated and originals & {p.fact.id for p in h.predecessors}
            for h in result.hits[:5]
        )
        before = _update_time(corpus, probe) - timedelta(seconds=1)
        past = memory.search(probe.question, user_id=corpus.user_id, k=30, as_of=before)
        then = [m for h in past.hits if (m := _message_id(h.fact.id)) is not None][:5]
        verdict["asof_correct"] = bool(set(probe.original_ids) & set(then)) and not (
            set(probe.updated_ids) & set(then)
        )
        verdicts.append(verdict)
    return verdicts, latencies


def asof_structural(memory: Any, corpus: BeamCorpus) -> list[bool]:
    """Without search: as of just before each update, the original is believed and the
    update is not (``Memory.facts(as_of=…)``)."""
    out = []
    for probe in corpus.usable:
        before = _update_time(corpus, probe) - timedelta(seconds=1)
        ids = {f.id for f in memory.facts(user_id=corpus.user_id, as_of=before, limit=1000)}
        now = {f.id for f in memory.facts(user_id=corpus.user_id, limit=1000)}
        originals = {corpus.fact_id(o) for o in probe.original_ids}
        updated = {corpus.fact_id(u) for u in probe.updated_ids}
        out.append(
            bool(originals & ids) and not (updated & ids) and not (originals & now - updated)
        )
    return out


def summarise(verdicts: list[dict[str, bool]]) -> dict[str, float]:
    n = len(verdicts)
    summary: dict[str, float] = {"n": n}
    for metric in METRICS:
        summary[metric] = sum(v.get(metric, False) for v in verdicts) / n if n else 0.0
    return summary
