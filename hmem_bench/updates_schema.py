"""The schema every split of issue 47's development set keeps (``hmem_bench/updates_dev*.jsonl``,
read by ``hmem_bench.updates``): what each split's test checks first, before its own
invariants."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

__all__ = ["SINGLE_VALUED", "problems", "write_or_check"]

#: Kinds whose asked slot holds one value at a time (the others add values up).
SINGLE_VALUED = frozenset({"single", "third", "ending", "count", "correction"})
_SETS = ("current", "stale", "closed", "open")


def problems(seqs: Iterable[dict[str, Any]]) -> list[str]:
    """What breaks the schema, one line each (none: the split is well formed): unique ids
    that start "<kind>-<topic>-", days from 0 strictly increasing, the four index sets in
    range, sorted, without repeats and consistent (a current value, never stale or
    closed; nothing both closed and open); one current value of a single-valued slot, its
    earlier values closed and before it; for values that add up, every step current and
    open, nothing stale or closed."""
    found: list[str] = []
    seen: set[str] = set()
    for seq in seqs:
        sid, n = seq["id"], len(seq["steps"])
        if sid in seen or not sid.startswith(f"{seq['kind']}-{seq['topic']}-"):
            found.append(f"{sid}: id repeated or not <kind>-<topic>-")
        seen.add(sid)
        days = [step["day"] for step in seq["steps"]]
        if not days or days[0] != 0 or any(a >= b for a, b in pairwise(days)):
            found.append(f"{sid}: days do not start at 0 and increase")
        for name in _SETS:
            if seq[name] != sorted(set(seq[name])) or any(not 0 <= i < n for i in seq[name]):
                found.append(f"{sid}: {name} out of range, unsorted or repeated")
        current, stale = set(seq["current"]), set(seq["stale"])
        closed, open_ = set(seq["closed"]), set(seq["open"])
        if not current or current & stale or closed & open_ or current & closed:
            found.append(f"{sid}: current, stale, closed and open disagree")
        if seq["kind"] in SINGLE_VALUED:
            if len(current) != 1 or not stale <= closed or any(i > min(current) for i in stale):
                found.append(f"{sid}: a single value's earlier values are not closed before it")
        elif not current == open_ == set(range(n)) or stale or closed:
            found.append(f"{sid}: values that add up are not all current and open")
    return found


def write_or_check(text: str, path: Path, argv: Sequence[str] | None, about: str) -> int:
    """A split generator's command line: write ``text`` (the generated split) to ``--data``
    (``path``, the split's file, unless given), or with ``--check`` only compare: 1 when
    the file differs or is missing."""
    parser = argparse.ArgumentParser(description=about)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--data", type=Path, default=path, help="the split's file")
    args = parser.parse_args(argv)
    data: Path = args.data
    lines = text.count("\n")
    if args.check:
        same = data.exists() and data.read_text(encoding="utf-8") == text
        print(
            f"{data}: {'up to date' if same else 'differs from the generator'} ({lines} sequences)"
        )
        return 0 if same else 1
    data.write_text(text, encoding="utf-8")
    print(f"wrote {lines} sequences to {data}")
    return 0
