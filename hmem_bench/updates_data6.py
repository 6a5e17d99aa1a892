"""The sixth development split of issue 47, "updates in any words"
(``hmem_bench/updates_dev6.jsonl``): a user tells an assistant things in plain text, the
values change over time, and the memory must rank the newest value first and close the
earlier ones, without closing anything it should not.

How it was written: a validation set for whoever tunes the reading code, written blind.
Its author read ``hmem_bench/updates.py`` (the runner, for the record format it reads),
the first three lines of ``hmem_bench/updates_dev.jsonl`` (an example), the module
docstring of ``hmem_bench/updates_data5.py`` (the schema and how split 5 was written; not
its code), ``tests/unit/hmem_bench/test_updates_data5.py`` (the shape of its test) and
``tests/unit/test_layering.py`` (the size limit); nothing else of the other splits (not
their generators, phrase files or other lines), not ``docs/plain-text.md``, and no
reading code (nothing under ``hmem/``). The generator is new code and the phrases
(``hmem_bench/updates_phrases6.txt``) were written by hand for this split, in three
registers taken in turn along each sequence: terse notes ("car: now a Polestar 2"),
ordinary sentences, and chatty messages with a reason or some context (at most 25 words).
First person mostly, some "the user ..." reports and some second-hand ("my wife says I
should mention ..."); over 60 topics of a person's life (possessions, places, people,
providers, routines, tastes, work, study, health, names, numbers), most of them outside a
fixed table of slots; values before their slot, indirect names ("... is what I go by"),
"has changed to", "switched from X to Y", "no longer X", "X is out, Y is in", verbs that
replace ("traded my X for Y"), corrections, endings then a new value, counts and
ordinals, additions that stay open, third parties named by many relation words. When a
case was ambiguous it was left out. Nothing was tuned on it: no system was run on it
before it was committed, and no phrase was changed to make a reader pass or fail.

The schema (the one ``updates.py`` reads): ``steps`` the statements in order with their
day (strictly increasing, the first 0); ``current`` the steps that answer ``question``
now (for a multi-valued slot, every value); ``stale`` the earlier values of the asked
slot; ``closed`` every step a later one should close (earlier values of a single-valued
slot, the user's or a third party's, and what an ending ended); ``open`` the steps
nothing may close (additions to a multi-valued slot, another person's value, a statement
of another slot in between), leaving out the asked slot's current value when it is the
last step; an ending statement ("my dog died") is in neither. ``history`` asks for every
value of the asked slot (``current`` and ``stale``).

Kinds: ``single`` (a chain of 2 to 5 values of one slot, sometimes an unrelated statement
in between), ``multi`` (values add up), ``third`` (a relative's, friend's, colleague's or
neighbour's slot beside the user's own; the question asks about one of them), ``ending``
(an ending, then a new value), ``count`` (counts and ordinals), ``correction`` (a value
corrected: "sorry, typo, it's X").

The phrase file: blocks headed ``== <kind> <topic>`` (and ``== generic``, ``== parties``),
lines ``key: text``, phrases split by `` | ``. A statement key (``first``, ``change``,
``add``, ``end``, ``new``, ``fix``, ``own``, ``ownchange``, ``pfirst``, ``pchange``) holds
three registers split by `` || ``: terse notes, sentences, chatty messages (read as
``first.t``, ``first.s``, ``first.c``); ``ask`` holds the questions, then `` || `` and the
history questions (``ask_party`` and ``ask_own`` for a third party's block). The other
keys: ``v`` the values (for a correction, pairs ``X ~ Y``, a value and the slip it is
mistaken for, either way round); ``p`` the relations; ``slot`` (single blocks) the slot's
noun, which lets the ``generic`` change phrases serve the block too; ``order: rising``
keeps a chain's values in the listed order (a salary that only goes up); ``max`` caps a
chain's length (a surname changes once or twice in a life); ``gap`` the days between two
statements (``300-800`` for a child; otherwise ``GAP``, or ``SLIP_GAP`` for a
correction); ``not_p`` the relations a third party's block leaves out (a step-parent's
new partner); ``aside`` (generic) an unrelated statement put between two values;
``unit`` (``child/children``) and ``range`` (``1-3``, the first count) for counts.
Placeholders: ``{v}`` the value (``{V}`` capitalised), ``{old}`` the value before it
(``{Old}``), ``{p}`` the relation, ``{slot}`` the slot's noun, and for counts ``{n}``
digits, ``{w}`` the number in words, ``{ord}`` the ordinal (a step of one), ``{unit}``
the noun in its number.

``python -m hmem_bench.updates_data6`` writes the file; ``--check`` compares instead.
Seeded (``SEED``): the same file every time.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

__all__ = ["PATH", "PHRASES", "PLAN", "REGISTERS", "SEED", "build", "dump", "fill"]

HERE = Path(__file__).parent
PATH = HERE / "updates_dev6.jsonl"
PHRASES = HERE / "updates_phrases6.txt"
SEED = 6173
PLAN = {"single": 180, "multi": 40, "third": 40, "ending": 28, "count": 24, "correction": 22}
REGISTERS = ("t", "s", "c")
GAP = "14-150"  # days between two statements, unless a block says (``gap``)
SLIP_GAP = "1-20"  # a slip is noticed soon ("I got my number wrong earlier")
STATEMENT_KEYS = {
    "single": ("first", "change"),
    "multi": ("first", "add"),
    "third": ("own", "ownchange", "pfirst", "pchange"),
    "ending": ("first", "change", "end", "new"),
    "count": ("first", "change"),
    "correction": ("first", "fix"),
}
WORDS = (
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
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
ORDINALS = (
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
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
)
Block = dict[str, list[str]]


def read_phrases(path: Path = PHRASES) -> dict[str, Block]:
    """The phrase file's blocks, by heading, each key's phrases in file order."""
    blocks: dict[str, Block] = {}
    block: Block | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            block = blocks.setdefault(line[3:].strip(), {})
            continue
        key, sep, text = line.partition(":")
        key = key.strip()
        if block is None or not sep or not text.strip():
            raise ValueError(f"{path.name}:{number}: not a 'key: text' line in a block")
        parts = text.split(" || ")
        if key.startswith("ask"):  # questions || history questions
            names = [f"q{key[3:]}", f"h{key[3:]}"]
        elif len(parts) == len(REGISTERS):
            names = [f"{key}.{register}" for register in REGISTERS]
        else:
            names = [key]
        if len(parts) != len(names):
            raise ValueError(f"{path.name}:{number}: {len(parts)} parts for {key!r}")
        for name, part in zip(names, parts, strict=True):
            found = [p.strip() for p in part.split(" | ") if p.strip()]
            block.setdefault(name, []).extend(found)
    return blocks


def fill(template: str, **values: str) -> str:
    """``template`` with its placeholders filled; ``{V}``/``{Old}`` capitalised."""
    out = template
    for name, value in values.items():
        out = out.replace("{" + name + "}", value)
        cap = name[:1].upper() + name[1:]
        out = out.replace("{" + cap + "}", value[:1].upper() + value[1:])
    if "{" in out or "}" in out:
        raise ValueError(f"unfilled placeholder in {out!r}")
    return out


class _Writer:
    """Picks phrases for one sequence: registers in turn, no phrase twice."""

    def __init__(self, rng: random.Random, block: Block, generic: Block) -> None:
        self.rng = rng
        self.block = block
        self.generic = generic
        self.turn = rng.randrange(len(REGISTERS))
        self.used: set[str] = set()

    def pool(self, key: str, register: str) -> list[str]:
        pool = list(self.block.get(f"{key}.{register}", []))
        if key == "change" and "slot" in self.block:
            pool += self.generic.get(f"change.{register}", [])
        return pool

    def pick(self, key: str) -> str:
        register = REGISTERS[self.turn % len(REGISTERS)]
        self.turn += 1
        pool = self.pool(key, register)
        if not pool:  # a key short of this register: any of its phrases
            pool = [p for r in REGISTERS for p in self.pool(key, r)]
        fresh = [p for p in pool if p not in self.used] or pool
        phrase = self.rng.choice(fresh)
        self.used.add(phrase)
        return phrase


def _days(rng: random.Random, n: int, gap: str = GAP) -> list[int]:
    low, high = (int(x) for x in gap.split("-"))
    days = [0]
    for _ in range(n - 1):
        days.append(days[-1] + rng.randint(low, high))
    return days


def _record(
    kind: str,
    topic: str,
    number: int,
    texts: Sequence[str],
    labels: dict[str, list[int]],
    question: str,
    history: str,
    rng: random.Random,
    gap: str = GAP,
) -> dict[str, Any]:
    days = _days(rng, len(texts), gap)
    return {
        "id": f"{kind}-{topic}-{number:03d}",
        "kind": kind,
        "topic": topic,
        "steps": [{"text": t, "day": d} for t, d in zip(texts, days, strict=True)],
        "question": question,
        "current": sorted(labels["current"]),
        "stale": sorted(labels["stale"]),
        "closed": sorted(labels["closed"]),
        "open": sorted(labels["open"]),
        "history": history,
    }


def _single(rng: random.Random, block: Block, generic: Block) -> tuple[list[str], Any]:
    w = _Writer(rng, block, generic)
    k = min(rng.choice((2, 2, 3, 3, 3, 4, 5)), int(block.get("max", ["5"])[0]))
    values = rng.sample(block["v"], k)
    if block.get("order") == ["rising"]:  # a value that only goes up (a pay rise)
        values.sort(key=block["v"].index)
    slot = block.get("slot", [""])[0]
    texts = [fill(w.pick("first"), v=values[0], slot=slot)]
    for old, new in pairwise(values):
        texts.append(fill(w.pick("change"), v=new, old=old, slot=slot))
    aside = None
    if rng.random() < 0.3:
        aside = rng.randint(1, k - 1)
        texts.insert(aside, rng.choice(generic["aside"]))
    steps = [i for i in range(len(texts)) if i != aside]
    labels = {
        "current": [steps[-1]],
        "stale": steps[:-1],
        "closed": steps[:-1],
        "open": [] if aside is None else [aside],
    }
    return texts, labels


def _multi(rng: random.Random, block: Block, generic: Block) -> tuple[list[str], Any]:
    w = _Writer(rng, block, generic)
    values = rng.sample(block["v"], rng.choice((2, 3, 3, 4, 5)))
    texts = [fill(w.pick("first"), v=values[0])]
    texts += [fill(w.pick("add"), v=v, old=old) for old, v in pairwise(values)]
    every = list(range(len(texts)))
    return texts, {"current": every, "stale": [], "closed": [], "open": every}


def _ending(rng: random.Random, block: Block, generic: Block) -> tuple[list[str], Any]:
    w = _Writer(rng, block, generic)
    before = rng.choice((1, 1, 2)) if "change.s" in block else 1
    values = rng.sample(block["v"], before + 1)
    texts = [fill(w.pick("first"), v=values[0])]
    if before == 2:
        texts.append(fill(w.pick("change"), v=values[1], old=values[0]))
    texts.append(fill(w.pick("end"), old=values[before - 1]))
    texts.append(fill(w.pick("new"), v=values[before], old=values[before - 1]))
    stale = list(range(before))
    labels = {"current": [before + 1], "stale": stale, "closed": stale, "open": []}
    return texts, labels


def _count(rng: random.Random, block: Block, generic: Block) -> tuple[list[str], Any]:
    w = _Writer(rng, block, generic)
    low, high = (int(x) for x in block["range"][0].split("-"))
    singular, plural = block["unit"][0].split("/")
    n = rng.randint(low, high)

    def forms(n: int) -> dict[str, str]:
        unit = singular if n == 1 else plural
        return {"n": str(n), "w": WORDS[n], "ord": ORDINALS[n], "unit": unit}

    texts = [fill(w.pick("first"), **forms(n))]
    for _ in range(rng.choice((1, 1, 2, 3))):
        phrase = w.pick("change")
        n += 1 if "{ord}" in phrase else rng.randint(1, 3)
        texts.append(fill(phrase, **forms(n)))
    last = len(texts) - 1
    stale = list(range(last))
    return texts, {"current": [last], "stale": stale, "closed": stale, "open": []}


def _correction(rng: random.Random, block: Block, generic: Block) -> tuple[list[str], Any]:
    w = _Writer(rng, block, generic)
    old, new = rng.sample(rng.choice(block["v"]).split(" ~ "), 2)  # a slip: "M14 5ER"
    texts = [fill(w.pick("first"), v=old), fill(w.pick("fix"), v=new, old=old)]
    return texts, {"current": [1], "stale": [0], "closed": [0], "open": []}


def _third(
    rng: random.Random, block: Block, generic: Block, party: str
) -> tuple[list[str], Any, bool]:
    """The user's values and a party's, interleaved; the asked owner has two or three."""
    w = _Writer(rng, block, generic)
    own_asked = rng.random() < 0.25
    asked_n, other_n = rng.choice((2, 2, 3)), rng.choice((1, 1, 2))
    own_n, party_n = (asked_n, other_n) if own_asked else (other_n, asked_n)
    values = rng.sample(block["v"], own_n + party_n)
    own, theirs = values[:own_n], values[own_n:]
    order = ["own"] * (own_n - 1) + ["party"] * (party_n - 1)
    rng.shuffle(order)
    order = [*rng.sample(["own", "party"], 2), *order]
    texts: list[str] = []
    owners: dict[str, list[int]] = {"own": [], "party": []}
    seen = {"own": 0, "party": 0}
    for who in order:
        i = seen[who]
        seen[who] += 1
        vals = own if who == "own" else theirs
        key = ("own" if i == 0 else "ownchange") if who == "own" else "pfirst"
        if who == "party" and i > 0:
            key = "pchange"
        old = vals[i - 1] if i else ""
        texts.append(fill(w.pick(key), v=vals[i], old=old, p=party))
        owners[who].append(len(texts) - 1)
    asked = owners["own" if own_asked else "party"]
    kept = {owners["own"][-1], owners["party"][-1]}
    last = len(texts) - 1
    labels = {
        "current": [asked[-1]],
        "stale": asked[:-1],
        "closed": [i for i in range(len(texts)) if i not in kept],
        "open": sorted(kept - ({last} if asked[-1] == last else set())),
    }
    return texts, labels, own_asked


def build(seed: int = SEED, path: Path = PHRASES) -> list[dict[str, Any]]:
    """Every sequence of the split, kinds in ``PLAN``'s numbers, topics in turn."""
    rng = random.Random(seed)  # noqa: S311  (a fixed split, not a secret)
    phrases = read_phrases(path)
    generic, parties = phrases["generic"], phrases["parties"]["p"]
    out: list[dict[str, Any]] = []
    for kind, total in PLAN.items():
        topics = sorted(h.split(" ", 1)[1] for h in phrases if h.startswith(kind + " "))
        for number in range(total):
            topic = topics[number % len(topics)]
            block = phrases[f"{kind} {topic}"]
            if kind == "third":
                party = rng.choice([p for p in parties if p not in block.get("not_p", [])])
                texts, labels, own = _third(rng, block, generic, party)
                suffix = "own" if own else "party"
                question = fill(rng.choice(block[f"q_{suffix}"]), p=party)
                history = fill(rng.choice(block[f"h_{suffix}"]), p=party)
            else:
                make = {
                    "single": _single,
                    "multi": _multi,
                    "ending": _ending,
                    "count": _count,
                    "correction": _correction,
                }[kind]
                texts, labels = make(rng, block, generic)
                question = rng.choice(block["q"])
                history = rng.choice(block["h"])
            gap = block.get("gap", [SLIP_GAP if kind == "correction" else GAP])[0]
            record = _record(kind, topic, number, texts, labels, question, history, rng, gap)
            out.append(record)
    return out


def dump(seqs: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in seqs)


def words(text: str) -> int:
    """The words of a statement, as a reader counts them (a dash is not one)."""
    return len(re.findall(r"[\w'’.@+-]*\w[\w'’.@+-]*", text))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = dump(build())
    if args.check:
        same = PATH.exists() and PATH.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{PATH.name} differs from the generator")
        return 0 if same else 1
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH} ({text.count(chr(10))} sequences)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
