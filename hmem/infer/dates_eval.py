"""Score the date reader on the date corpus: ``python -m hmem.infer.dates_eval``.

The corpus (``hmem/infer/data/dates_*.txt``) holds sentences written for this with the
interval and precisions a reader should take from them, each with its ``observed_at``.
``dates_dev.txt`` is the part the reader was tuned on; ``dates_heldout.txt`` was written
apart and is scored, not tuned on. A case is exact when both ends and both precisions
are; the misses are printed."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hmem.slots.dates import read_interval

__all__ = ["Case", "load", "main", "score"]

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Case:
    observed_at: datetime
    text: str
    expected: tuple[str, str, str, str]


def _day(value: str) -> datetime:
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def load(part: str) -> list[Case]:
    cases = []
    for line in (DATA / f"dates_{part}.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        observed, text, *expected = (cell.strip() for cell in line.split("|"))
        if len(expected) != 4:
            raise ValueError(f"dates_{part}.txt: a line needs 6 cells: {line!r}")
        cases.append(
            Case(_day(observed), text, (expected[0], expected[1], expected[2], expected[3]))
        )
    return cases


def _got(case: Case) -> tuple[str, str, str, str]:
    found = read_interval(case.text, case.observed_at)

    def day(value: datetime | None) -> str:
        return value.date().isoformat() if value is not None else "-"

    return (
        day(found.valid_from),
        found.from_precision or "-",
        day(found.valid_to),
        found.to_precision or "-",
    )


def score(cases: list[Case]) -> tuple[int, list[tuple[Case, tuple[str, str, str, str]]]]:
    misses = []
    for case in cases:
        got = _got(case)
        if got != case.expected:
            misses.append((case, got))
    return len(cases) - len(misses), misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=["dev", "heldout"])
    parser.add_argument("--min", type=float, default=0.95, help="exact share to pass")
    args = parser.parse_args(argv)
    failed = False
    for part in args.parts:
        cases = load(part)
        exact, misses = score(cases)
        share = exact / len(cases)
        print(f"{part}: {exact}/{len(cases)} exact ({share:.1%})")
        for case, got in misses:
            print(f"  miss  {case.observed_at.date()}  {case.text}")
            print(f"        expected {' '.join(case.expected)}   got {' '.join(got)}")
        failed |= share < args.min
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
