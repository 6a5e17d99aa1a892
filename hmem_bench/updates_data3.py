"""The third development split of issue 47, "updates in any words"
(``hmem_bench/updates_dev3.jsonl``): a user tells an assistant things in plain text, the
values change over time, and the memory must rank the newest value first.

How it was written: a validation set for whoever generalises the reading code, written
independently of it. Its author read ``hmem_bench/updates.py`` for the record format and
the first three lines of ``updates_dev.jsonl`` for an example, and nothing else of the
other splits: not their generators, not their texts, not the reading code (``hmem/slots``,
``hmem/infer``, ``hmem/recall``). The phrases (``hmem_bench/updates_phrases3.txt``) were
written by hand from everyday speech, many per slot (and a few shared by every
single-valued slot, "quick update: my {slot} is {v} now"), first and third person, value
before slot, indirect names, described values. Nothing was tuned on it: no system was run on it
before it was committed, and no phrase was changed to make a reader pass or fail.

The schema, as ``updates.py`` reads it: ``steps`` the statements in order with their day
(strictly increasing); ``current`` the steps that answer ``question`` now (for a
multi-valued slot, every value); ``stale`` the earlier values of the asked slot;
``closed`` every step a later one should close (earlier values of a single-valued slot,
of the user's or of a third party's, and what an ending ended); ``open`` the steps
nothing may close (additions to a multi-valued slot, another person's or another slot's
value), leaving out the asked slot's current value when it is the last step; an ending
statement ("my dog died") is in neither, and a write may close it or not. ``history``
asks for every value of the asked slot (``current`` and ``stale``).

Kinds: ``single`` (a chain of values of one slot, one link phrased unusually when the
chain has four steps or more, sometimes a statement of another slot in between),
``multi`` (values add up), ``third`` (a third party's slot beside the user's own),
``ending`` (an ending, then a new value), ``count`` (counts and ordinals),
``correction`` ("actually it's March 13, not March 3").

``python -m hmem_bench.updates_data3`` writes the file; ``--check`` compares instead.
Seeded: the same file every time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["PATH", "PHRASES", "SEED", "build", "dump", "main", "read_phrases"]

PATH = Path(__file__).with_name("updates_dev3.jsonl")
PHRASES = Path(__file__).with_name("updates_phrases3.txt")
SEED = 4703

#: Sequences per kind: 55% single, 12% multi, 12% third, 8% ending, 7% count, 6% correction.
PLAN = {"single": 165, "multi": 36, "third": 36, "ending": 24, "count": 21, "correction": 18}

#: Slots too close to stand beside each other as an unrelated statement in one sequence.
NEAR = (
    {"name", "nickname", "partner"},
    {"home", "city"},
    {"employer", "job"},
    {"phone", "laptop"},
    {"food", "cheese", "drink"},
    {"age", "birthday"},
)

WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
ORDINALS: tuple[str, ...] = ("zeroth", "first", "second", "third", "fourth", "fifth")
ORDINALS += ("sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth")

Phrases = dict[str, dict[str, list[str]]]


def read_phrases(path: Path = PHRASES) -> Phrases:
    """The phrase file: ``{"kind topic": {key: [phrase, ...]}}``, values split on ``|``
    (the block ``generic single`` holds change phrases for any single-valued slot)."""
    blocks: Phrases = {}
    block: dict[str, list[str]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            block = blocks.setdefault(line.strip("[]"), {})
            continue
        key, _, text = line.partition(": ")
        if key in ("v", "p", "slot"):
            block.setdefault(key, []).extend(part.strip() for part in text.split(" | "))
        else:
            block.setdefault(key, []).append(text)
    return blocks


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _number(n: int) -> str:
    return WORDS[n] if n < len(WORDS) else str(n)


def _ordinal(n: int) -> str:
    if n < len(ORDINALS):
        return ORDINALS[n]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _say(
    template: str, value: str = "", old: str = "", party: str = "", n: int = 0, slot: str = ""
) -> str:
    text = template.format(
        slot=slot,
        v=value,
        V=_cap(value),
        old=old,
        Old=_cap(old),
        p=party,
        P=_cap(party),
        n=_number(n),
        N=str(n),
        nth=_ordinal(n),
    )
    return _cap(" ".join(text.split()))


class _Picker:
    """Templates without repeats inside one sequence (until a list runs out)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def __call__(self, options: Sequence[str], has_old: bool = True) -> str:
        pool = [t for t in options if has_old or "{old" not in t.lower()]
        fresh = [t for t in pool if t not in self.used] or pool
        choice = self.rng.choice(fresh)
        self.used.add(choice)
        return choice


def _days(rng: random.Random, count: int, low: int = 5, high: int = 90) -> list[int]:
    days = [0]
    for _ in range(count - 1):
        days.append(days[-1] + rng.randint(low, high))
    return days


def _record(
    kind: str,
    topic: str,
    texts: Sequence[str],
    days: Sequence[int],
    question: str,
    history: str,
    current: Sequence[int],
    stale: Sequence[int],
    closed: Sequence[int],
    loose: Sequence[int] = (),
) -> dict[str, Any]:
    """One sequence; ``open`` is every step neither closed nor ``loose`` (an ending), but
    the asked slot's current value when it is the last step of a single-valued slot."""
    last = len(texts) - 1
    open_ = [
        i
        for i in range(len(texts))
        if i not in closed
        and i not in loose
        and not (kind != "multi" and i in current and i == last)
    ]
    return {
        "id": "",
        "kind": kind,
        "topic": topic,
        "steps": [{"text": t, "day": d} for t, d in zip(texts, days, strict=True)],
        "question": question,
        "current": sorted(current),
        "stale": sorted(stale),
        "closed": sorted(closed),
        "open": open_,
        "history": history,
    }


def _unrelated(rng: random.Random, phrases: Phrases, topic: str) -> str:
    """A statement of another of the user's single-valued slots (nothing may close it)."""
    near = {topic, "age"}
    for group in NEAR:
        if topic in group:
            near |= group
    others = sorted(k for k in phrases if k.startswith("single ") and k[7:] not in near)
    block = phrases[rng.choice(others)]
    return _say(rng.choice(block["first"]), rng.choice(block["v"]))


def _single(rng: random.Random, phrases: Phrases, topic: str, turn: int) -> dict[str, Any]:
    block = phrases[f"single {topic}"]
    generic = phrases["generic single"]
    slot = block["slot"][0]
    pick = _Picker(rng)
    length = rng.choices((2, 3, 4, 5, 6), weights=(1, 2, 3, 3, 2))[0]
    if topic == "age":
        start = rng.randint(19, 58)
        numbers = [start + i for i in range(length)]
        days = _days(rng, length, 330, 400)
    else:
        length = min(length, len(block["v"]))
        values = rng.sample(block["v"], length)
        if topic == "job":  # promotions: titles in the file's order, junior first
            values.sort(key=block["v"].index)
        days = _days(rng, length)
    odd_at = rng.randrange(1, length) if length >= 4 or rng.random() < 0.3 else -1
    texts: list[str] = []
    for i in range(length):
        if i == 0:
            options = block["first"] + (block["odd"] if rng.random() < 0.2 else [])
            template = pick(options, has_old=False)
        else:
            own = block["odd"] if i == odd_at else block["change"]
            shared = generic["odd" if i == odd_at else "change"]
            template = pick(shared if topic != "age" and rng.random() < 0.3 else own)
        if topic == "age":
            prev = str(numbers[i - 1]) if i else ""
            texts.append(_say(template, str(numbers[i]), prev, n=numbers[i], slot=slot))
        else:
            texts.append(_say(template, values[i], values[i - 1] if i else "", slot=slot))
    chain = list(range(length))
    if rng.random() < 0.3:
        at = rng.randrange(1, length)
        texts.insert(at, _unrelated(rng, phrases, topic))
        days = _days(rng, len(texts), *((330, 400) if topic == "age" else (5, 60)))
        chain = [i if i < at else i + 1 for i in chain]
    last = chain[-1]
    return _record(
        "single",
        topic,
        texts,
        days,
        rng.choice(block["q"]),
        rng.choice(block["h"]),
        [last],
        chain[:-1],
        chain[:-1],
    )


def _multi(rng: random.Random, phrases: Phrases, topic: str, turn: int) -> dict[str, Any]:
    block = phrases[f"multi {topic}"]
    pick = _Picker(rng)
    length = rng.choices((2, 3, 4, 5), weights=(1, 3, 3, 2))[0]
    values = rng.sample(block["v"], length)
    texts = [
        _say(pick(block["first"] if i == 0 else block["add"]), v) for i, v in enumerate(values)
    ]
    every = list(range(length))
    return _record(
        "multi",
        topic,
        texts,
        _days(rng, length),
        rng.choice(block["q"]),
        rng.choice(block["h"]),
        every,
        [],
        [],
    )


def _third(rng: random.Random, phrases: Phrases, topic: str, turn: int) -> dict[str, Any]:
    block = phrases[f"third {topic}"]
    pick = _Picker(rng)
    party = rng.choice(block["p"])
    ask = "party" if rng.random() < 0.6 else "own"
    n_party = rng.choice((2, 2, 3))
    n_own = 2 if rng.random() < (0.7 if ask == "own" else 0.4) else 1
    values = rng.sample(block["v"], n_party + n_own)
    own_values, party_values = values[:n_own], values[n_own:]
    heads = ["own", "party"]
    rng.shuffle(heads)
    tails = ["party"] * (n_party - 1) + ["own"] * (n_own - 1)
    rng.shuffle(tails)
    texts: list[str] = []
    steps: dict[str, list[int]] = {"own": [], "party": []}
    for who in heads + tails:
        k = len(steps[who])
        mine = own_values if who == "own" else party_values
        key = (
            ("own" if k == 0 else "ownchange")
            if who == "own"
            else ("pfirst" if k == 0 else "pchange")
        )
        old = mine[k - 1] if k else ""
        texts.append(_say(pick(block[key], has_old=k > 0), mine[k], old, party))
        steps[who].append(len(texts) - 1)
    asked = steps[ask]
    question = rng.choice(block["q_party" if ask == "party" else "q_own"])
    history = rng.choice(block["h_party" if ask == "party" else "h_own"])
    return _record(
        "third",
        topic,
        texts,
        _days(rng, len(texts)),
        _say(question, party=party),
        _say(history, party=party),
        [asked[-1]],
        asked[:-1],
        steps["own"][:-1] + steps["party"][:-1],
    )


def _ending(rng: random.Random, phrases: Phrases, topic: str, turn: int) -> dict[str, Any]:
    block = phrases[f"ending {topic}"]
    pick = _Picker(rng)
    rounds = 2 if rng.random() < 0.35 else 1
    values = rng.sample(block["v"], rounds + 1)
    texts = [_say(pick(block["first"], has_old=False), values[0])]
    held, ends = [0], []
    for r in range(rounds):
        texts.append(_say(pick(block["end"]), old=values[r]))
        ends.append(len(texts) - 1)
        texts.append(_say(pick(block["new"]), values[r + 1], values[r]))
        held.append(len(texts) - 1)
    return _record(
        "ending",
        topic,
        texts,
        _days(rng, len(texts)),
        rng.choice(block["q"]),
        rng.choice(block["h"]),
        [held[-1]],
        held[:-1],
        held[:-1],
        loose=ends,
    )


#: Where each count starts, and by how much a step may raise it.
COUNT_START = {"children": (2, 3), "grandchildren": (2, 6), "marathons": (2, 8)}


def _count(rng: random.Random, phrases: Phrases, topic: str, turn: int) -> dict[str, Any]:
    block = phrases[f"count {topic}"]
    pick = _Picker(rng)
    length = rng.choices((2, 3, 4), weights=(2, 3, 2))[0]
    low, high = COUNT_START.get(topic, (8, 40))
    numbers = [rng.randint(low, high)]
    for _ in range(length - 1):
        numbers.append(numbers[-1] + (rng.randint(1, 4) if topic == "countries" else 1))
    texts = [
        _say(pick(block["first"] if i == 0 else block["change"]), n=n)
        for i, n in enumerate(numbers)
    ]
    earlier = list(range(length - 1))
    return _record(
        "count",
        topic,
        texts,
        _days(rng, length, 30, 400),
        rng.choice(block["q"]),
        rng.choice(block["h"]),
        [length - 1],
        earlier,
        earlier,
    )


def _correction(rng: random.Random, phrases: Phrases, topic: str, turn: int) -> dict[str, Any]:
    block = phrases[f"correction {topic}"]
    pick = _Picker(rng)
    pairs = block["v"]  # every pair once before any twice
    wrong, _, right = pairs[turn % len(pairs)].partition(" > ")
    texts = [_say(pick(block["first"]), wrong), _say(pick(block["fix"]), right, wrong)]
    days = _days(rng, 2, 1, 4)
    if rng.random() < 0.4:
        texts.insert(1, _unrelated(rng, phrases, topic))
        days = _days(rng, 3, 1, 3)
    return _record(
        "correction",
        topic,
        texts,
        days,
        rng.choice(block["q"]),
        rng.choice(block["h"]),
        [len(texts) - 1],
        [0],
        [0],
    )


#: One maker per kind: ``(rng, phrases, topic, turn)``, ``turn`` the sequence's number
#: within its topic.
MAKERS = {
    "single": _single,
    "multi": _multi,
    "third": _third,
    "ending": _ending,
    "count": _count,
    "correction": _correction,
}


def build(seed: int = SEED, phrases: Phrases | None = None) -> list[dict[str, Any]]:
    """Every sequence, kinds in ``PLAN``'s order, topics in turn within a kind."""
    phrases = phrases if phrases is not None else read_phrases()
    rng = random.Random(seed)  # noqa: S311  (a fixed data set, not a secret)
    out: list[dict[str, Any]] = []
    for kind, total in PLAN.items():
        topics = [key.split(" ", 1)[1] for key in phrases if key.startswith(f"{kind} ")]
        numbers = dict.fromkeys(topics, 0)
        for i in range(total):
            topic = topics[i % len(topics)]
            seq = MAKERS[kind](rng, phrases, topic, numbers[topic])
            seq["id"] = f"{kind}-{topic}-{numbers[topic]:03d}"
            numbers[topic] += 1
            out.append(seq)
    return out


def dump(seqs: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(seq, ensure_ascii=False) + "\n" for seq in seqs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PATH)
    parser.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    args = parser.parse_args(argv)
    text = dump(build())
    if args.check:
        same = args.out.read_text(encoding="utf-8") == text
        print("same" if same else f"{args.out} differs from what the generator writes")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} sequences to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
