"""Updates in any words (issue 47), measured on the development set written for it
(``hmem_bench/updates_dev.jsonl``, ``hmem_bench.updates_data``): each sequence written as
plain text, one ``remember(text)`` per statement, days apart, no links, no dates, no
model; MiniLM vectors from the bench cache. Then its question, and the figures:

- updated top 1: the first hit is a current answer (for a multi-valued slot, any of its
  values);
- stale first: the first hit is an earlier value;
- wrong closures: statements nothing may close (an addition to a multi-valued slot,
  another person's value, the background facts) that a write closed, by kind;
- missed closures: earlier values of a single-valued slot (or what an ending ended) left
  open;
- history: the history question ("all the names I have given you") answered in history
  mode with every value in the first 10.

``python -m hmem_bench.updates`` (a running Neo4j, ``HMEM_NEO4J_*``); ``--infer off``
for the figure without inference, ``--show N`` prints N misses of each kind.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from hmem.config import Config
from hmem.errors import NotFoundError
from hmem.extract.local_embed import LocalEmbeddings
from hmem.memory import Memory
from hmem_bench.embed_cache import CachedEmbedder
from hmem_bench.plain_text import _percentiles
from hmem_bench.updates_data import PATH

__all__ = ["main", "run"]

#: Facts every user of the set has too, written first: competition for the search, and
#: facts no update may close.
BACKGROUND = (
    "I enjoy reading science fiction on the train.",
    "I have a dentist appointment next Tuesday.",
    "The weather was lovely this weekend.",
    "I bought new running shoes.",
)
START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def _standing(memory: Memory, user: str, fact_id: str) -> bool:
    """No write closed the fact (a text the store skipped as a repeat is not one)."""
    try:
        return memory.get(fact_id, user_id=user).known_to is None
    except NotFoundError:
        return False


def load(path: Path = PATH) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def run(
    memory: Memory,
    embedder: CachedEmbedder,
    seqs: Sequence[dict[str, Any]],
    infer: bool,
    tag: str = "",
) -> dict[str, Any]:
    texts = list(BACKGROUND) + [s["text"] for q in seqs for s in q["steps"]]
    vectors = dict(zip(texts, embedder.matrix(texts).tolist(), strict=True))
    tally: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    misses: dict[str, list[str]] = defaultdict(list)
    closures: list[dict[str, Any]] = []
    times: list[float | None] = []
    for number, seq in enumerate(seqs):
        if number % 50 == 0:
            print(f"infer={infer}: {number}/{len(seqs)}", file=sys.stderr, flush=True)
        user = f"upd{tag}-{seq['id']}-{'on' if infer else 'off'}"
        memory.erase_user(user)
        ids = {}
        for i, text in enumerate(BACKGROUND):
            memory.remember(
                text,
                user_id=user,
                observed_at=START - timedelta(days=30 - i),
                embedding=vectors[text],
                fact_id=f"{user}-bg{i}",
                infer=infer,
            )
        for i, step in enumerate(seq["steps"]):
            fid = f"{user}-{i}"
            ids[fid] = i
            started = time.perf_counter()
            result = memory.remember(
                step["text"],
                user_id=user,
                observed_at=START + timedelta(days=step["day"]),
                embedding=vectors[step["text"]],
                fact_id=fid,
                infer=infer,
            )
            times.append((time.perf_counter() - started) * 1000)
            for link in result.inferred:
                closures.append(
                    {
                        "seq": seq["id"],
                        "closed": link.old_id,
                        "by": fid,
                        "cue": link.cue,
                        "score": link.score,
                        "reason": link.reason.value,
                    }
                )
        now = START + timedelta(days=seq["steps"][-1]["day"] + 1)
        found = memory.search(seq["question"], user_id=user, k=5, now=now)
        top = ids.get(found.hits[0].fact.id) if found.hits else None
        kind = seq["kind"]
        # open: no write closed it (its belief stands), whatever its world window says
        # ("ticked off Norway this summer" ended; "moving to Leeds next year" starts
        # later) and however far the sequence's days run past the wall clock
        written = [f"{user}-{i}" for i in range(len(seq["steps"]))]
        written += [f"{user}-bg{i}" for i in range(len(BACKGROUND))]
        open_ids = {fid for fid in written if _standing(memory, user, fid)}
        counts = by_kind[kind]
        counts["n"] += 1
        ok = top in seq["current"]
        counts["top1"] += ok
        tally["top1"] += ok
        if seq["stale"]:
            stale = top in seq["stale"]
            counts["stale_n"] += 1
            counts["stale_first"] += stale
            tally["stale_n"] += 1
            tally["stale_first"] += stale
        wrong = [i for i in seq["open"] if f"{user}-{i}" not in open_ids]
        wrong += [f"bg{i}" for i in range(len(BACKGROUND)) if f"{user}-bg{i}" not in open_ids]
        missed = [i for i in seq["closed"] if f"{user}-{i}" in open_ids]
        counts["wrong_closures"] += len(wrong)
        counts["expected_closures"] += len(seq["closed"])
        counts["missed_closures"] += len(missed)
        tally["wrong_closures"] += len(wrong)
        tally["expected_closures"] += len(seq["closed"])
        tally["missed_closures"] += len(missed)
        if not ok:
            misses["top1"].append(
                f"{seq['id']}: {seq['question']} -> "
                f"{found.hits[0].fact.text if found.hits else None!r} "
                f"| {' / '.join(s['text'] for s in seq['steps'])}"
            )
        if wrong:
            misses["wrong"].append(
                f"{seq['id']}: closed {wrong} | " + " / ".join(s["text"] for s in seq["steps"])
            )
        if missed:
            misses["missed"].append(
                f"{seq['id']}: open {missed} | " + " / ".join(s["text"] for s in seq["steps"])
            )
        if seq.get("history"):
            past = memory.search(seq["history"], user_id=user, k=10, now=now)
            got = {ids.get(h.fact.id) for h in past.hits}
            every = set(seq["current"]) | set(seq["stale"])
            tally["history_n"] += 1
            tally["history_mode"] += past.mode == "history"
            complete = every <= got
            tally["history_all"] += complete
            if not complete or past.mode != "history":
                misses["history"].append(
                    f"{seq['id']}: {seq['history']} mode={past.mode} "
                    f"found {sorted(i for i in got if i is not None)} "
                    f"of {sorted(every)}"
                )
        memory.erase_user(user)
    n = len(seqs)

    def ratio(a: int, b: int) -> float:
        return round(a / b, 3) if b else 0.0

    kinds = {
        kind: {
            "n": c["n"],
            "updated_top1": ratio(c["top1"], c["n"]),
            "stale_first": ratio(c["stale_first"], c["stale_n"]),
            "wrong_closures": c["wrong_closures"],
            "missed_closures": f"{c['missed_closures']}/{c['expected_closures']}",
        }
        for kind, c in sorted(by_kind.items())
    }
    return {
        "infer": infer,
        "sequences": n,
        "updated_top1": ratio(tally["top1"], n),
        "stale_first": ratio(tally["stale_first"], tally["stale_n"]),
        "wrong_closures": tally["wrong_closures"],
        "missed_closures": f"{tally['missed_closures']}/{tally['expected_closures']}",
        "history_mode": ratio(tally["history_mode"], tally["history_n"]),
        "history_all_in_top10": ratio(tally["history_all"], tally["history_n"]),
        "closures": len(closures),
        "write_ms": _percentiles(times),
        "by_kind": kinds,
        "misses": dict(misses),
        "closure_sample": closures[:20],
    }


def rules_only(
    seqs: Sequence[dict[str, Any]], frames: Any | None = None, threshold: float = 0.0
) -> dict[str, Any]:
    """The write side alone, no store: each statement judged by the rules against every
    earlier one still open (and the background facts), as if all were its neighbours (an
    upper bound of what a write can close; a real write reads its nearest only). Wrong
    and missed closures as in ``run``. With ``frames`` (an embedding function) and
    ``threshold``, the masked frames decide too, as a write does
    (``hmem.infer.write.frame_decisions``)."""
    from hmem.infer.changes import decide, read_claims
    from hmem.infer.frames import frame_decisions

    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    misses: dict[str, list[str]] = defaultdict(list)
    for seq in seqs:
        texts = list(BACKGROUND) + [s["text"] for s in seq["steps"]]
        claims = read_claims(texts)
        closed: set[int] = set()
        first = len(BACKGROUND)
        for i in range(first, len(texts)):
            olds = [j for j in range(i) if j not in closed]
            decisions = [decide(claims[i], claims[j]) for j in olds]
            if frames is not None and threshold > 0:
                decisions = frame_decisions(
                    claims[i], [claims[j] for j in olds], decisions, frames, threshold
                )
            for j, decision in zip(olds, decisions, strict=True):
                if decision is not None and decision.op == "supersede":
                    closed.add(j)
                    if "(frame " in decision.cue:
                        by_kind[seq["kind"]]["frame_closures"] += 1
        steps = {j - first for j in closed if j >= first}
        wrong = [i for i in seq["open"] if i in steps] + [j for j in closed if j < first]
        missed = [i for i in seq["closed"] if i not in steps]
        counts = by_kind[seq["kind"]]
        counts["n"] += 1
        counts["wrong_closures"] += len(wrong)
        counts["missed_closures"] += len(missed)
        counts["expected_closures"] += len(seq["closed"])
        line = f"{seq['id']}: " + " / ".join(s["text"] for s in seq["steps"])
        if wrong:
            misses["wrong"].append(f"closed {wrong} | {line}")
        if missed:
            misses["missed"].append(f"open {missed} | {line}")
    total: Counter[str] = Counter()
    for counts in by_kind.values():
        total.update(counts)
    return {
        "sequences": len(seqs),
        "wrong_closures": total["wrong_closures"],
        "missed_closures": f"{total['missed_closures']}/{total['expected_closures']}",
        "closed_by_frame": total["frame_closures"],
        "by_kind": {
            k: {
                "n": c["n"],
                "wrong_closures": c["wrong_closures"],
                "missed_closures": f"{c['missed_closures']}/{c['expected_closures']}",
            }
            for k, c in sorted(by_kind.items())
        },
        "misses": dict(misses),
    }


def calibrate(seqs: Sequence[dict[str, Any]], frames: Any, sample: int = 12) -> dict[str, Any]:
    """The masked frames' cosines on the pairs a write would ask them about
    (``changes.frame_candidate``: one subject, words naming two slots, not both known):
    same-slot pairs (two statements of one single-valued sequence) against other-slot
    pairs (a statement and a background fact; statements of two sequences of other
    topics, ``sample`` sequences each, fixed seed). The threshold is set above the
    highest other-slot cosine of the development split, so that no pair of two slots the
    set knows apart is read as one; the figures say what it then finds."""
    import itertools
    import random

    from hmem.infer.changes import read_claims
    from hmem.infer.frames import frame_candidate

    texts = sorted({s["text"] for q in seqs for s in q["steps"]} | set(BACKGROUND))
    claims = dict(zip(texts, read_claims(texts), strict=True))
    pairs: list[tuple[str, str, bool]] = []
    rng = random.Random(47)  # noqa: S311  (a fixed sample, not a secret)
    for seq in seqs:
        steps = [s["text"] for s in seq["steps"]]
        if seq["kind"] in ("single", "correction", "count"):
            pairs += [(b, a, True) for a, b in itertools.combinations(steps, 2)]
        pairs += [(a, b, False) for a in steps for b in BACKGROUND]
        for rival in rng.sample(list(seqs), min(sample, len(seqs))):
            if rival["topic"] != seq["topic"]:
                pairs += [(a, s["text"], False) for a in steps for s in rival["steps"]]
    asked = [(a, b, same) for a, b, same in pairs if frame_candidate(claims[a], claims[b])]
    unique = sorted({claims[t].frame or "" for a, b, _ in asked for t in (a, b)})
    vectors = np.asarray(frames(unique), dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    at = {frame: i for i, frame in enumerate(unique)}
    cosines = [
        float(vectors[at[claims[a].frame or ""]] @ vectors[at[claims[b].frame or ""]])
        for a, b, _ in asked
    ]
    same = sorted(c for c, (_, _, s) in zip(cosines, asked, strict=True) if s)
    other = sorted(
        ((c, a, b) for c, (a, b, s) in zip(cosines, asked, strict=True) if not s), reverse=True
    )
    return {
        "pairs_asked": len(asked),
        "same_slot": len(same),
        "other_slot": len(other),
        "other_slot_max": round(other[0][0], 3) if other else None,
        "other_slot_top": [
            f"{c:.3f} {claims[a].frame!r} ~ {claims[b].frame!r}" for c, a, b in other[:8]
        ],
        "same_slot_cosines": [round(c, 3) for c in same],
        "at": {
            str(t): {
                "same_slot_found": sum(c >= t for c in same),
                "other_slot_joined": sum(c >= t for c, _, _ in other),
            }
            for t in (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model-dir", type=Path, default=Path("../shared/models/all-MiniLM-L6-v2-onnx")
    )
    parser.add_argument("--cache-dir", type=Path, default=Path(".hmem/bench-cache"))
    parser.add_argument("--data", type=Path, default=PATH)
    parser.add_argument("--infer", choices=("on", "off", "both"), default="on")
    parser.add_argument("--only", help="only sequences whose id starts so (e.g. name-)")
    parser.add_argument("--show", type=int, default=15, help="misses printed per kind")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--tag", default="", help="in the user ids: two runs side by side")
    parser.add_argument(
        "--rules", action="store_true", help="the write side's rules alone, no store (fast)"
    )
    parser.add_argument(
        "--frame-cosine",
        type=float,
        default=Config().infer_frame_cosine,
        help="with --rules: the masked frames' threshold (0: words only); a store run "
        "takes Config's (HMEM_INFER_FRAME_COSINE)",
    )
    parser.add_argument(
        "--calibrate", action="store_true", help="the masked frames' cosines, no store"
    )
    parser.add_argument("--start", type=int, default=0, help="with --every: the first one")
    parser.add_argument(
        "--every", type=int, default=1, help="every Nth sequence only (a busy machine)"
    )
    args = parser.parse_args(argv)
    seqs = load(args.data)
    if args.only:
        seqs = [s for s in seqs if s["id"].startswith(tuple(args.only.split(",")))]
    seqs = seqs[args.start :: args.every]
    if args.calibrate:
        embed = LocalEmbeddings(model_dir=args.model_dir, expected_dim=384).embed
        print(json.dumps(calibrate(seqs, embed), indent=1))
        return 0
    if args.rules:
        frames = None
        if args.frame_cosine > 0:
            frames = LocalEmbeddings(model_dir=args.model_dir, expected_dim=384).embed
        found = rules_only(seqs, frames, args.frame_cosine)
        shown = {k: v[: args.show] for k, v in found["misses"].items()}
        print(json.dumps({**found, "misses": shown}, indent=1))
        return 0
    config = Config()
    local = LocalEmbeddings(model_dir=args.model_dir, expected_dim=config.embedding_dim)
    embedder = CachedEmbedder(local, args.cache_dir)
    settings = {"on": (True,), "off": (False,), "both": (False, True)}[args.infer]
    out = []
    with Memory(config, embedder=local) as memory:
        memory.init_schema()
        for infer in settings:
            out.append(run(memory, embedder, seqs, infer, args.tag))
    for result in out:
        shown = {k: v[: args.show] for k, v in result["misses"].items()}
        print(json.dumps({**result, "misses": shown}, indent=1, default=str))
    if args.out:
        args.out.write_text(json.dumps(out, indent=1, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
