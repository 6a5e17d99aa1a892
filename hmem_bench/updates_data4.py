"""The fourth development split of issue 47, "updates in any words"
(``hmem_bench/updates_dev4.jsonl``): a user tells an assistant things in plain text, the
values change over time, and the memory must rank the newest value first and close the
earlier ones, closing nothing it should not.

How it was written: a validation set for whoever tunes the reading code, written blind.
Its author read ``hmem_bench/updates.py`` (the runner, for the record format it reads),
the first three lines of ``updates_dev.jsonl`` (an example), the module docstring of
``hmem_bench/updates_data3.py`` (the schema, and how the third split was written; in
passing, the imports and constant names below it) and
``tests/unit/hmem_bench/test_updates_data3.py`` (the shape of its test); nothing else of
the other splits (not their generators, not their phrases, not their other lines) and
none of the reading code (``hmem/slots``, ``hmem/infer``, ``hmem/recall``,
``hmem/extract``). The code here is new, and the phrases (``updates_phrases4.txt``) were
written by hand from everyday speech: many per slot, first person mostly, some "the user
..." reports, values before slots ("Brie is the cheese I like most these days"), indirect
names ("my friends call me Jojo"), described values, fillers, switches, corrections,
endings then new values, counts and ordinals, values that add up, a third party's value
beside the user's own. Nothing was tuned on it: no system was run on it before it was
committed, and no phrase was changed to make a reader pass or fail.

The schema is split 3's, as ``updates.py`` reads it: ``steps`` the statements in order
with their day (strictly increasing, the first day 0); ``current`` the steps that answer
``question`` now (for a multi-valued slot, every value); ``stale`` the earlier values of
the asked slot; ``closed`` every step a later one should close (earlier values of a
single-valued slot, the user's or a third party's, and what an ending ended); ``open``
the steps nothing may close (additions to a multi-valued slot, another person's or
another slot's value, a current value a later statement follows), leaving out the asked
slot's current value when it is the last step; an ending ("my cat passed away") is in
neither. ``history`` asks for every value of the asked slot (``current`` and ``stale``).

Kinds: ``single`` (2 to 5 values of one slot, one link phrased unusually when there are
four or more, sometimes another slot's statement in between), ``multi`` (2 to 4 values
that add up), ``third`` (a third party's value of the slot beside the user's own, either
changing; the question asks about one of them), ``ending`` (a value ends, a new one
comes; sometimes twice), ``count`` (counts and ordinals), ``correction`` ("actually it's
March 13, not March 3"). In ``single``, ``ending``, ``count`` and ``correction`` a statement
of another slot (of another family: never "my dentist" beside "my doctor") sometimes
comes in between or after, in ``open``.

``python -m hmem_bench.updates_data4`` writes the file; ``--check`` compares instead.
Seeded (``SEED``): the same file every time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

__all__ = ["PATH", "PHRASES", "PLAN", "SEED", "build", "dump", "main", "read_phrases"]

PATH = Path(__file__).with_name("updates_dev4.jsonl")
PHRASES = Path(__file__).with_name("updates_phrases4.txt")
SEED = 9147
#: Sequences of each kind; within a kind, the topics take turns.
PLAN: dict[str, int] = {
    "single": 200,
    "multi": 44,
    "third": 44,
    "ending": 29,
    "count": 25,
    "correction": 22,
}

Block = dict[str, list[str]]
Seq = dict[str, Any]

_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
_ORDINALS = (
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
)
#: Values that begin a sentence as they are spelled.
_AS_SPELLED = ("iPhone", "iCloud")


def read_phrases(path: Path = PHRASES) -> dict[str, Block]:
    """The blocks of the phrase file: ``"kind topic"`` to each key's lines (a ``v:`` line
    holds values separated by ``" | "``)."""
    blocks: dict[str, Block] = {}
    block: Block | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            block = blocks.setdefault(line[3:].strip(), {})
            continue
        key, sep, text = line.partition(": ")
        if block is None or not sep or not text.strip():
            raise ValueError(f"{path.name}:{number}: not 'key: text' inside a block")
        values = text.split(" | ") if key in ("v", "p") else [text.strip()]
        block.setdefault(key, []).extend(v.strip() for v in values)
    return blocks


def _number(n: int) -> str:
    return _WORDS[n] if n < len(_WORDS) else str(n)


def _ordinal(n: int) -> str:
    if n < len(_ORDINALS):
        return _ORDINALS[n]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _fill(template: str, **values: str) -> str:
    text = template.format_map(values)
    if text[:1].islower() and not text.startswith(_AS_SPELLED):
        text = text[0].upper() + text[1:]
    return text


class _Writer:
    """One seeded writer: each kind's sequences from the phrase blocks."""

    def __init__(self, blocks: dict[str, Block], seed: int) -> None:
        self.rng = random.Random(seed)  # noqa: S311  (a fixed data set, not a secret)
        self.blocks = blocks
        self.generic = blocks.get("generic single", {})

    def topics(self, kind: str) -> list[str]:
        return [key.split(" ", 1)[1] for key in self.blocks if key.split(" ", 1)[0] == kind]

    def pick(self, lines: list[str], used: set[str]) -> str:
        """A line not used yet in this sequence, when there is one."""
        fresh = [line for line in lines if line not in used] or lines
        line = self.rng.choice(fresh)
        used.add(line)
        return line

    def days(self, n: int) -> list[int]:
        days = [0]
        for _ in range(n - 1):
            days.append(days[-1] + self.rng.randint(2, 70))
        return days

    def aside(self, topic: str, family: str) -> str:
        """A statement of another single-valued slot, of another family."""
        others = [
            block
            for key, block in self.blocks.items()
            if key.startswith("single ")
            and key != f"single {topic}"
            and block.get("family", [""])[0] != family
        ]
        block = self.rng.choice(others)
        return _fill(self.rng.choice(block["first"]), v=self.rng.choice(block["v"]))

    def with_aside(
        self, texts: list[str], topic: str, block: Block, chance: float, after: int = 1
    ) -> tuple[list[str], int | None]:
        """``texts`` with another slot's statement put in at a place after ``after``
        steps, sometimes; that place, or None."""
        if self.rng.random() >= chance:
            return texts, None
        at = self.rng.randint(after, len(texts))
        family = block.get("family", [topic])[0]
        return [*texts[:at], self.aside(topic, family), *texts[at:]], at

    def record(
        self,
        kind: str,
        topic: str,
        texts: list[str],
        block: Block,
        *,
        current: list[int],
        stale: list[int],
        closed: list[int],
        open_: list[int],
        question: str | None = None,
        history: str | None = None,
    ) -> Seq:
        return {
            "id": "",
            "kind": kind,
            "topic": topic,
            "steps": [
                {"text": text, "day": day}
                for text, day in zip(texts, self.days(len(texts)), strict=True)
            ],
            "question": question or self.rng.choice(block["q"]),
            "current": sorted(current),
            "stale": sorted(stale),
            "closed": sorted(closed),
            "open": sorted(open_),
            "history": history or self.rng.choice(block["h"]),
        }

    def chain(self, kind: str, topic: str, block: Block, texts: list[str], aside: float) -> Seq:
        """A chain of values of one single-valued slot: the last one current, every
        earlier one stale and closed, another slot's statement (if any) open, and the
        current value open when a statement follows it."""
        texts, at = self.with_aside(texts, topic, block, aside)
        values = [i for i in range(len(texts)) if i != at]
        last = values[-1]
        open_ = [] if at is None else [at]
        if last != len(texts) - 1:
            open_.append(last)
        return self.record(
            kind,
            topic,
            texts,
            block,
            current=[last],
            stale=values[:-1],
            closed=values[:-1],
            open_=open_,
        )

    def single(self, topic: str) -> Seq:
        block = self.blocks[f"single {topic}"]
        k = self.rng.choices((2, 3, 4, 5), weights=(30, 30, 25, 15))[0]
        values = self.rng.sample(block["v"], k)
        slot = block["slot"][0]
        generic = self.generic if block.get("generic") != ["no"] else {}
        odd = self.rng.randint(1, k - 1) if k >= 4 else None
        used: set[str] = set()
        texts = [_fill(self.rng.choice(block["first"]), v=values[0])]
        for i, value in enumerate(values[1:], 1):
            if i == odd:
                lines = block.get("odd", []) + generic.get("odd", [])
            elif generic and self.rng.random() < 0.12:
                lines = generic["change"]
            else:
                lines = block["change"]
            texts.append(_fill(self.pick(lines, used), v=value, slot=slot))
        return self.chain("single", topic, block, texts, aside=0.35)

    def multi(self, topic: str) -> Seq:
        block = self.blocks[f"multi {topic}"]
        k = self.rng.choices((2, 3, 4), weights=(35, 40, 25))[0]
        values = self.rng.sample(block["v"], k)
        used: set[str] = set()
        texts = [_fill(self.rng.choice(block["first"]), v=values[0])]
        texts += [_fill(self.pick(block["add"], used), v=v) for v in values[1:]]
        every = list(range(k))
        return self.record(
            "multi", topic, texts, block, current=every, stale=[], closed=[], open_=every
        )

    def third(self, topic: str) -> Seq:
        block = self.blocks[f"third {topic}"]
        # o: the user's own value, p: the party's; each owner's first, then changes
        patterns = ("opp", "poo", "opop", "popo", "oppp", "oop", "ppo", "opoo", "popp", "oopp")
        pattern = self.rng.choice(patterns)
        party = self.rng.choice(block["p"])
        values = self.rng.sample(block["v"], len(pattern))
        used: set[str] = set()
        texts: list[str] = []
        steps: dict[str, list[int]] = {"o": [], "p": []}
        for i, (owner, value) in enumerate(zip(pattern, values, strict=True)):
            first = not steps[owner]
            key = {"o": ("own", "ownchange"), "p": ("pfirst", "pchange")}[owner][not first]
            texts.append(_fill(self.pick(block[key], used), v=value, p=party))
            steps[owner].append(i)
        asked = self.rng.choice("op")
        suffix = "own" if asked == "o" else "party"
        current = steps[asked][-1:]
        closed = steps["o"][:-1] + steps["p"][:-1]
        kept = {steps["o"][-1], steps["p"][-1]}
        last = len(texts) - 1
        return self.record(
            "third",
            topic,
            texts,
            block,
            current=current,
            stale=steps[asked][:-1],
            closed=closed,
            open_=sorted(kept - ({last} & set(current))),
            question=_fill(self.rng.choice(block[f"q_{suffix}"]), p=party),
            history=_fill(self.rng.choice(block[f"h_{suffix}"]), p=party),
        )

    def ending(self, topic: str) -> Seq:
        block = self.blocks[f"ending {topic}"]
        twice = self.rng.random() < 0.25
        values = self.rng.sample(block["v"], 3 if twice else 2)
        used: set[str] = set()
        texts = [_fill(self.rng.choice(block["first"]), v=values[0])]
        ends: list[int] = []
        for old, new in pairwise(values):
            ends.append(len(texts))
            texts.append(_fill(self.pick(block["end"], used), v=old))
            texts.append(_fill(self.pick(block["new"], used), v=new))
        texts, at = self.with_aside(texts, topic, block, 0.3)
        if at is not None:
            ends = [e + (e >= at) for e in ends]
        values_at = [i for i in range(len(texts)) if i != at and i not in ends]
        last = values_at[-1]
        open_ = [] if at is None else [at]
        if last != len(texts) - 1:
            open_.append(last)
        return self.record(
            "ending",
            topic,
            texts,
            block,
            current=[last],
            stale=values_at[:-1],
            closed=values_at[:-1],
            open_=open_,
        )

    def count(self, topic: str) -> Seq:
        block = self.blocks[f"count {topic}"]
        low, high = (int(x) for x in block["start"][0].split("-"))
        start = self.rng.randint(low, high)
        k = self.rng.choices((2, 3, 4), weights=(40, 35, 25))[0]
        used: set[str] = set()
        texts = [_fill(self.rng.choice(block["first"]), n=_number(start))]
        for n in range(start + 1, start + k):
            line = self.pick(block["change"], used)
            texts.append(_fill(line, n=_number(n), nth=_ordinal(n)))
        return self.chain("count", topic, block, texts, aside=0.25)

    def correction(self, topic: str) -> Seq:
        block = self.blocks[f"correction {topic}"]
        wrong, right = (v.strip() for v in self.rng.choice(block["pair"]).split(" | "))
        texts = [
            _fill(self.rng.choice(block["first"]), v=wrong),
            _fill(self.rng.choice(block["fix"]), v=right, old=wrong),
        ]
        return self.chain("correction", topic, block, texts, aside=0.35)


def build(seed: int = SEED, phrases: Path = PHRASES) -> list[Seq]:
    """Every sequence of the split, in the plan's order, ids numbered per topic."""
    writer = _Writer(read_phrases(phrases), seed)
    out: list[Seq] = []
    for kind, total in PLAN.items():
        topics = writer.topics(kind)
        make = getattr(writer, kind)
        numbers: dict[str, int] = {}
        for i in range(total):
            topic = topics[i % len(topics)]
            seq = make(topic)
            seq["id"] = f"{kind}-{topic}-{numbers.get(topic, 0):03d}"
            numbers[topic] = numbers.get(topic, 0) + 1
            out.append(seq)
    return out


def dump(seqs: Sequence[Seq]) -> str:
    return "".join(json.dumps(seq) + "\n" for seq in seqs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--out", type=Path, default=PATH)
    args = parser.parse_args(argv)
    text = dump(build())
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'differs from the generator'}")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}: {text.count(chr(10))} sequences")
    return 0


if __name__ == "__main__":
    sys.exit(main())
