"""The fifth development split of issue 47, "updates in any words"
(``hmem_bench/updates_dev5.jsonl``): a user tells an assistant things in plain text, the
values change over time, and the memory must rank the newest value first and close the
earlier ones, without closing anything it should not.

How it was written: a validation set for whoever tunes the reading code, written blind.
Its author read ``hmem_bench/updates.py`` (the runner, for the record format it reads),
the first three lines of ``hmem_bench/updates_dev.jsonl`` (an example), the module
docstring of ``hmem_bench/updates_data3.py`` (the schema and how an earlier blind split
was written), ``tests/unit/hmem_bench/test_updates_data3.py`` (the shape of its test) and
``tests/unit/test_layering.py`` (the size limit); nothing else of the other splits (not
their generators, phrase files or other lines), not ``docs/plain-text.md``, and no
reading code (``hmem/slots``, ``hmem/infer``, ``hmem/recall``, ``hmem/extract``). The
generator is new code and the phrases (``hmem_bench/updates_phrases5.txt``) were written
by hand for this split: chatty messages as people type them (lowercase starts, fillers,
a reason or a bit of context), first person mostly and some "the user ..." reports,
values before slots, indirect names, described values, switches, corrections ("sorry,
typo — it's X"), endings then a new value, counts and ordinals, multi-valued slots and
third parties with a wide range of relation words. Nothing was tuned on it: no system was
run on it before it was committed, and no phrase was changed to make a reader pass or fail.

The schema (the one ``updates.py`` reads): ``steps`` the statements in order with their
day (strictly increasing, the first 0); ``current`` the steps that answer ``question``
now (for a multi-valued slot, every value); ``stale`` the earlier values of the asked
slot; ``closed`` every step a later one should close (earlier values of a single-valued
slot, the user's or a third party's, and what an ending ended); ``open`` the steps
nothing may close (additions to a multi-valued slot, another person's value, a statement
of another slot in between), leaving out the asked slot's current value when it is the
last step; an ending statement ("my dog died") is in neither. ``history`` asks for every
value of the asked slot (``current`` and ``stale``).

Kinds: ``single`` (a chain of 2 to 5 values of one slot, sometimes a statement of another
slot in between), ``multi`` (values add up), ``third`` (a relative's, friend's or
colleague's slot beside the user's own; the question asks about one of them), ``ending``
(an ending, then a new value), ``count`` (counts and ordinals), ``correction`` (a value
corrected: "wait, I got that wrong, it's X").

The phrase file: blocks headed ``== <kind> <topic>`` (and ``== generic``, ``== parties``),
lines ``key: text``, one phrase a line, a key repeated for each phrase; ``v`` and ``p``
lines list values split by `` | ``. Placeholders: ``{v}`` the value (``{V}`` capitalised),
``{old}`` the value before it, ``{p}`` the relation, ``{slot}`` the slot's noun, and for
counts ``{n}`` digits, ``{w}`` the number in words, ``{ord}`` the ordinal, ``{unit}`` the
noun in its number.

``python -m hmem_bench.updates_data5`` writes the file; ``--check`` compares instead.
Seeded (``SEED``): the same file every time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["PATH", "PHRASES", "PLAN", "SEED", "build", "dump", "main", "read_phrases"]

HERE = Path(__file__).parent
PATH = HERE / "updates_dev5.jsonl"
PHRASES = HERE / "updates_phrases5.txt"
SEED = 5281
#: Sequences of each kind: 320 in all, 55% single.
PLAN = {"single": 176, "multi": 38, "third": 38, "ending": 26, "count": 22, "correction": 20}
LIST_KEYS = ("v", "p")
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
ORDINALS: tuple[str, ...] = ("zeroth", "first", "second", "third", "fourth", "fifth")
ORDINALS += ("sixth", "seventh", "eighth", "ninth")

Block = dict[str, list[str]]
Phrases = dict[str, Block]


def read_phrases(path: Path = PHRASES) -> Phrases:
    blocks: Phrases = {}
    block: Block | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            block = blocks.setdefault(line[3:].strip(), {})
            continue
        key, sep, text = line.partition(": ")
        if block is None or not sep or not key.isidentifier() or not text.strip():
            raise ValueError(f"{path.name}:{number}: not a phrase line: {raw!r}")
        items = [v.strip() for v in text.split(" | ")] if key in LIST_KEYS else [text.strip()]
        block.setdefault(key, []).extend(items)
    return blocks


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def fill(template: str, **values: str) -> str:
    out = template
    for key, value in values.items():
        out = out.replace("{" + key + "}", value).replace("{" + _cap(key) + "}", _cap(value))
    if "{" in out or "}" in out:
        raise ValueError(f"unfilled placeholder in {template!r} with {sorted(values)}")
    return out


def _pick(rng: random.Random, options: Sequence[str], k: int) -> list[str]:
    """``k`` of ``options``, no repeats while there are enough."""
    if k <= len(options):
        return rng.sample(list(options), k)
    return [rng.choice(list(options)) for _ in range(k)]


def _days(rng: random.Random, n: int) -> list[int]:
    days = [0]
    for _ in range(n - 1):
        days.append(days[-1] + rng.randint(3, 75))
    return days


class Builder:
    def __init__(self, phrases: Phrases, rng: random.Random) -> None:
        self.ph = phrases
        self.rng = rng

    def choose(self, options: Sequence[str], used: set[str]) -> str:
        """One of ``options`` not yet ``used`` in this sequence (while there is one)."""
        pick = self.rng.choice([o for o in options if o not in used] or list(options))
        used.add(pick)
        return pick

    def topics(self, kind: str) -> list[str]:
        return sorted(k.split(" ", 1)[1] for k in self.ph if k.startswith(kind + " "))

    def interlude(self, topic: str) -> str:
        """A statement of another single-valued slot: nothing may close it."""
        other = self.rng.choice([t for t in self.topics("single") if t != topic])
        block = self.ph[f"single {other}"]
        return fill(self.rng.choice(block["first"]), v=self.rng.choice(block["v"]))

    def record(
        self,
        kind: str,
        topic: str,
        texts: list[str],
        question: str,
        history: str,
        current: list[int],
        stale: list[int],
        closed: list[int],
        open_: list[int],
    ) -> dict[str, Any]:
        days = _days(self.rng, len(texts))
        return {
            "id": "",
            "kind": kind,
            "topic": topic,
            "steps": [{"text": t, "day": d} for t, d in zip(texts, days, strict=True)],
            "question": question,
            "current": current,
            "stale": stale,
            "closed": closed,
            "open": open_,
            "history": history,
        }

    def chain(
        self, kind: str, topic: str, firsts: list[str], later: list[str], values: list[str]
    ) -> dict[str, Any]:
        """A chain of values of one single-valued slot, maybe a statement of another slot
        in between (in ``open``)."""
        rng = self.rng
        block = self.ph[f"{kind} {topic}"]
        generic = self.ph["generic"]["change"] if "slot" in block else []
        templates = _pick(rng, later, len(values) - 1)
        texts = [fill(rng.choice(firsts), v=values[0])]
        for i, template in enumerate(templates, 1):
            if generic and rng.random() < 0.15:
                template = rng.choice(generic)
            texts.append(
                fill(template, v=values[i], old=values[i - 1], slot=block.get("slot", [""])[0])
            )
        value_steps = list(range(len(texts)))
        open_: list[int] = []
        if rng.random() < 0.3:
            at = rng.randint(1, len(texts) - 1)
            texts.insert(at, self.interlude(topic))
            value_steps = [i if i < at else i + 1 for i in value_steps]
            open_ = [at]
        last = value_steps[-1]
        return self.record(
            kind,
            topic,
            texts,
            rng.choice(block["q"]),
            rng.choice(block["h"]),
            [last],
            value_steps[:-1],
            value_steps[:-1],
            open_,
        )

    def single(self, topic: str) -> dict[str, Any]:
        block = self.ph[f"single {topic}"]
        n = self.rng.choice([2, 2, 3, 3, 3, 4, 4, 5])
        values = self.rng.sample(block["v"], n)
        return self.chain("single", topic, block["first"], block["change"], values)

    def multi(self, topic: str) -> dict[str, Any]:
        rng = self.rng
        block = self.ph[f"multi {topic}"]
        n = rng.choice([2, 3, 3, 4])
        values = rng.sample(block["v"], n)
        texts = [fill(rng.choice(block["first"]), v=values[0])]
        texts += [
            fill(t, v=v) for t, v in zip(_pick(rng, block["add"], n - 1), values[1:], strict=True)
        ]
        every = list(range(n))
        return self.record(
            "multi",
            topic,
            texts,
            rng.choice(block["q"]),
            rng.choice(block["h"]),
            every,
            [],
            [],
            every,
        )

    def third(self, topic: str) -> dict[str, Any]:
        rng = self.rng
        block = self.ph[f"third {topic}"]
        party = rng.choice(self.ph["parties"]["p"])
        ask_party = rng.random() < 0.7
        own_n = rng.choice([1, 2]) if ask_party else rng.choice([1, 2, 2])
        party_n = rng.choice([2, 2, 3])
        values = rng.sample(block["v"], own_n + party_n)
        own = [("own", v) for v in values[:own_n]]
        theirs = [("party", v) for v in values[own_n:]]
        order: list[tuple[str, str]] = []
        while own or theirs:
            source = own if own and (not theirs or rng.random() < 0.4) else theirs
            order.append(source.pop(0))
        texts: list[str] = []
        steps: dict[str, list[int]] = {"own": [], "party": []}
        used: set[str] = set()
        for i, (who, value) in enumerate(order):
            seen = steps[who]
            if who == "own":
                key = "ownchange" if seen else "own"
            else:
                key = "pchange" if seen else "pfirst"
            previous = order[seen[-1]][1] if seen else ""
            texts.append(fill(self.choose(block[key], used), v=value, p=party, old=previous))
            seen.append(i)
        asked = steps["party" if ask_party else "own"]
        closed = sorted(steps["own"][:-1] + steps["party"][:-1])
        kept = {steps["own"][-1], steps["party"][-1]}
        last = len(texts) - 1
        open_ = sorted(kept - ({last} & {asked[-1]}))
        suffix = "party" if ask_party else "own"
        return self.record(
            "third",
            topic,
            texts,
            fill(rng.choice(block[f"q_{suffix}"]), p=party),
            fill(rng.choice(block[f"h_{suffix}"]), p=party),
            [asked[-1]],
            asked[:-1],
            closed,
            open_,
        )

    def ending(self, topic: str) -> dict[str, Any]:
        rng = self.rng
        block = self.ph[f"ending {topic}"]
        before = 2 if "change" in block and rng.random() < 0.35 else 1
        values = rng.sample(block["v"], before + 1)
        texts = [fill(rng.choice(block["first"]), v=values[0])]
        if before == 2:
            texts.append(fill(rng.choice(block["change"]), v=values[1], old=values[0]))
        texts.append(fill(rng.choice(block["end"]), old=values[before - 1]))
        ended = list(range(before))
        open_: list[int] = []
        if rng.random() < 0.25:
            open_ = [len(texts)]
            texts.append(self.interlude(topic))
        texts.append(fill(rng.choice(block["new"]), v=values[-1], old=values[before - 1]))
        return self.record(
            "ending",
            topic,
            texts,
            rng.choice(block["q"]),
            rng.choice(block["h"]),
            [len(texts) - 1],
            ended,
            ended,
            open_,
        )

    def counts(self, block: Block) -> list[int]:
        low, high = (int(x) for x in block["range"][0].split())
        n = self.rng.choice([2, 2, 3, 3, 4])
        if "mono" in block:
            start = self.rng.randint(low, high - n)
            out = [start]
            for _ in range(n - 1):
                out.append(min(high, out[-1] + self.rng.choice([1, 1, 1, 2])))
            return sorted(set(out))
        out = [self.rng.randint(low, high)]
        while len(out) < n:
            step = out[-1] + self.rng.choice([-2, -1, -1, 1, 1, 2])
            if low <= step <= high:
                out.append(step)
        return out

    def count(self, topic: str) -> dict[str, Any]:
        rng = self.rng
        block = self.ph[f"count {topic}"]
        one, many = block["unit"][0].split(" | ")
        numbers = self.counts(block)
        texts: list[str] = []
        used: set[str] = set()
        for i, n in enumerate(numbers):
            if i == 0:
                options = block["first"]
            else:
                delta = n - numbers[i - 1]
                options = list(block["change"])
                options += block.get("up" if delta > 0 else "down", [])
                # "next" and "prev": one more ("our third baby"), one fewer
                options += block.get({1: "next", -1: "prev"}.get(delta, ""), [])
            fields = {"n": str(n), "w": WORDS[n], "ord": ORDINALS[n]}
            texts.append(fill(self.choose(options, used), unit=one if n == 1 else many, **fields))
        every = list(range(len(texts)))
        return self.record(
            "count",
            topic,
            texts,
            rng.choice(block["q"]),
            rng.choice(block["h"]),
            [every[-1]],
            every[:-1],
            every[:-1],
            [],
        )

    def fixes(self, pool: list[str], shape: list[str]) -> list[str]:
        """Values for a correction: a fix is often a near miss of the value it corrects
        (the phrase file lists near misses side by side: "March 3 | March 13")."""
        values = [self.rng.choice(pool)]
        for key in shape[1:]:
            at = pool.index(values[-1])
            near = [pool[i] for i in (at - 1, at + 1) if 0 <= i < len(pool)]
            near = [v for v in near if v not in values]
            rest = [v for v in pool if v not in values]
            close = key == "fix" and near and self.rng.random() < 0.6
            values.append(self.rng.choice(near if close else rest))
        return values

    def correction(self, topic: str) -> dict[str, Any]:
        rng = self.rng
        block = self.ph[f"correction {topic}"]
        shapes = [["first", "fix"], ["first", "fix"], ["first", "fix", "fix"]]
        if "change" in block:
            shapes += [["first", "change", "fix"], ["first", "fix", "change"]]
        shape = rng.choice(shapes)
        values = self.fixes(block["v"], shape)
        texts = [fill(rng.choice(block["first"]), v=values[0])]
        used: set[str] = set()
        for i, key in enumerate(shape[1:], 1):
            texts.append(fill(self.choose(block[key], used), v=values[i], old=values[i - 1]))
        every = list(range(len(texts)))
        return self.record(
            "correction",
            topic,
            texts,
            rng.choice(block["q"]),
            rng.choice(block["h"]),
            [every[-1]],
            every[:-1],
            every[:-1],
            [],
        )


def build(phrases: Phrases | None = None, seed: int = SEED) -> list[dict[str, Any]]:
    builder = Builder(phrases or read_phrases(), random.Random(seed))  # noqa: S311  (a fixed sample)
    seqs: list[dict[str, Any]] = []
    for kind, total in PLAN.items():
        make = getattr(builder, kind)
        topics = builder.topics(kind)
        for i in range(total):
            topic = topics[i % len(topics)]
            seq = make(topic)
            seq["id"] = f"{kind}-{topic}-{i:03d}"
            seqs.append(seq)
    return seqs


def dump(seqs: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(seq, ensure_ascii=False) + "\n" for seq in seqs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = dump(build())
    if args.check:
        same = PATH.exists() and PATH.read_text(encoding="utf-8") == text
        print(f"{PATH.name}: {'up to date' if same else 'differs from the generator'}")
        return 0 if same else 1
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH} ({text.count(chr(10))} sequences)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
