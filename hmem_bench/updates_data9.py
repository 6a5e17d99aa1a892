"""The ninth development split of issue 47, "updates in any words"
(``hmem_bench/updates_dev9.jsonl``): a user tells an assistant things in plain text over
days, the values change, and the memory must rank the newest value first and close the
earlier ones, without closing anything it should not (values that add up, another
person's values, unrelated statements).

How it was written: a blind validation set; the people tuning the reader see only its
figures. Its author read ``hmem_bench/updates.py`` (the runner, for the record format and
``load``), the first three lines of ``hmem_bench/updates_dev.jsonl`` (an example), the
module docstring of ``hmem_bench/updates_data8.py`` (the schema and how split 8 was
written; not its code), ``tests/unit/hmem_bench/test_updates_data8.py`` (the shape of a
split's test), ``hmem_bench/updates_schema.py`` (the shared schema check, used here) and
``tests/unit/test_layering.py`` (the size limit); nothing else of the other splits (not
their generators, phrase files or other lines), nothing under ``docs/`` and no reading code
(nothing under ``hmem/``). The generator is new code and the phrases
(``hmem_bench/updates_phrases9.txt``) were written by hand for this split. No memory system
or reader was run on it before it was committed, and no phrase was changed to make a
reader pass or fail.

What it holds (300 sequences). ``single`` 140: half (70) the user's name (twice as often
as the others), nickname, online handle and favourite colour, food, film, band, book and
drink, chains of 3 to 5 values; half (70) life facts: home city, employer, job title,
partner, car, phone, gym, a son's school, diet, the cat's name, bank, dentist, commute and
a hobby that replaced another, chains of 2 to 4. ``multi`` 30 (hobbies, languages, pets,
allergies, countries visited, instruments: they add up and all stay current). ``third``
30 (a relative's or friend's city, employer, car, favourite food, phone or gym beside the
user's own; half the questions ask about the other person, half about the user).
``ending`` 30 (a dog died, a car sold, a flatmate moved out, a job quit, a gym cancelled,
a break-up; then a new value, sometimes the end and the new value in one message, one to
two cycles). ``count`` 30 (kids, cats, marathons, books this year, houseplants,
grandchildren; digits, number words and ordinals, an ordinal only when the count grows
by one). ``correction`` 40 (birthday, city, name, phone, employer; a slip put right the
day after with a bare "sorry, I meant X", or days later naming its slot, or with an
unrelated statement between, sometimes after an earlier genuine change). Phrasings as
chat users type them: the update one clause of a chatty message, values before slots,
"no longer", "not X anymore", "switched", "these days", lower case and slang, notes
("new bank: Monzo"); questions in many words and history questions. About one single in
six and a third of endings and corrections hold an unrelated statement between two values
(in ``open``). Cases a careful reader would find ambiguous were left out.

The schema (as split 8's): ``steps`` the statements in order with their day (strictly
increasing, the first 0); ``current`` the steps that answer ``question`` now (for values
that add up, every value); ``stale`` the earlier values of the asked slot; ``closed`` every
step a later one should close (earlier values of a single-valued slot, the user's or the
other person's, a slip, and what an ending ended); ``open`` the steps nothing may close
(additions, the other person's latest value, an unrelated statement; the asked current
value when a later step follows it); an ending statement is in neither. ``history`` asks
for every value of the asked slot (``current`` and ``stale``). Checked by
``updates_schema.problems``.

The phrase file: blocks ``== <kind> <topic>`` (and ``== generic``, ``== parties``), lines
``key: phrase | phrase`` (a key may repeat; its lines add up). Keys: ``v`` values (for a
correction ``value ~ slip``), ``slot`` a favourite's noun (the ``generic`` ``fav_*`` pools
serve the block), ``group``, ``weight``, ``range`` and ``step`` (counts); statements
``first``, ``change``, ``add``, ``own``, ``ownchange``, ``pfirst``, ``pchange``, ``end``,
``new``, ``endnew``, ``ord``, ``fix`` (and the generic ``fixnow``, ``aside``); questions
``q``/``h`` (``q_own``, ``q_party``, ``h_own``, ``h_party``). Each pool is shuffled once
and dealt in turn.

``python -m hmem_bench.updates_data9`` writes the file; ``--check`` compares instead.
Seeded (``SEED``): the same file every time.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hmem_bench.updates_schema import write_or_check

__all__ = [
    "GROUPS",
    "ORDINALS",
    "PATH",
    "PHRASES",
    "PLAN",
    "SEED",
    "WORDS",
    "build",
    "build_full",
    "dump",
    "main",
    "ordinal",
    "read_phrases",
]

HERE = Path(__file__).parent
PATH = HERE / "updates_dev9.jsonl"
PHRASES = HERE / "updates_phrases9.txt"
SEED = 9241
PLAN = {"single": 140, "multi": 30, "third": 30, "ending": 30, "count": 30, "correction": 40}
GROUPS = {"personal": 70, "life": 70}
# fmt: off
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty"]
ORDINALS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh",
            "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
            "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"]
# fmt: on

Phrases = dict[str, dict[str, list[str]]]
Meta = dict[str, Any]
Pair = tuple[dict[str, Any], Meta]


def read_phrases(path: Path | None = None) -> Phrases:
    """Blocks of ``key: a | b`` lines; ``#`` starts a comment line."""
    blocks: Phrases = {}
    block: dict[str, list[str]] = {}
    for raw in (path or PHRASES).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            block = blocks.setdefault(line[3:].strip(), {})
            continue
        key, _, rest = line.partition(": ")
        block.setdefault(key.strip(), []).extend(p.strip() for p in rest.split(" | "))
    return blocks


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def fill(template: str, **kw: str) -> str:
    out = template
    for key, value in kw.items():
        out = out.replace("{" + key + "}", value)
        out = out.replace("{" + key.upper() + "}", value[:1].upper() + value[1:])
    return out


class Dealer:
    """Each pool shuffled once and dealt in turn (reshuffled when it runs out)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pools: dict[str, list[str]] = {}

    def deal(self, name: str, items: Sequence[str], avoid: Sequence[str] = ()) -> str:
        pool = self.pools.setdefault(name, [])
        if not pool:
            pool.extend(items)
            self.rng.shuffle(pool)
        for i, item in enumerate(pool):  # a chain does not repeat a phrase if it can help it
            if item not in avoid:
                return pool.pop(i)
        return pool.pop(0)


class Maker:
    def __init__(self, phrases: Phrases, rng: random.Random) -> None:
        self.ph = phrases
        self.rng = rng
        self.dealer = Dealer(rng)

    def block(self, kind: str, topic: str) -> dict[str, list[str]]:
        return self.ph[f"{kind} {topic}"]

    def phrase(self, kind: str, topic: str, key: str, used: list[str]) -> str:
        block = self.block(kind, topic)
        if key in block:
            got = self.dealer.deal(f"{kind} {topic} {key}", block[key], used)
        else:  # a favourite: the generic pools, with the block's noun
            got = self.dealer.deal(f"generic fav_{key}", self.ph["generic"][f"fav_{key}"], used)
        used.append(got)
        return got

    def slot(self, kind: str, topic: str) -> str:
        return self.block(kind, topic).get("slot", [""])[0]

    def aside(self) -> str:
        return self.dealer.deal("aside", self.ph["generic"]["aside"])

    def gap(self, lo: int = 3, hi: int = 60) -> int:
        return self.rng.randint(lo, hi)


def _record(
    kind: str,
    topic: str,
    number: int,
    steps: list[tuple[str, int]],
    question: str,
    history: str,
    sets: dict[str, list[int]],
) -> dict[str, Any]:
    return {
        "id": f"{kind}-{topic}-{number:03d}",
        "kind": kind,
        "topic": topic,
        "steps": [{"text": t, "day": d} for t, d in steps],
        "question": question,
        "current": sorted(sets["current"]),
        "stale": sorted(sets["stale"]),
        "closed": sorted(sets["closed"]),
        "open": sorted(sets["open"]),
        "history": history,
    }


def _single(m: Maker, topic: str, number: int, group: str) -> Pair:
    lo, hi = (3, 5) if group == "personal" else (2, 4)
    values = m.rng.sample(m.block("single", topic)["v"], m.rng.randint(lo, hi))
    slot, used = m.slot("single", topic), list[str]()
    steps: list[tuple[str, int]] = []
    meta: Meta = {"values": {}, "roles": {}}
    aside_after = m.rng.randrange(len(values) - 1) if m.rng.random() < 1 / 6 else -1
    day = 0
    for i, value in enumerate(values):
        key = "first" if i == 0 else "change"
        text = fill(m.phrase("single", topic, key, used), v=value, old=values[i - 1], slot=slot)
        meta["values"][len(steps)], meta["roles"][len(steps)] = value, "value"
        steps.append((text, day))
        day += m.gap()
        if i == aside_after:
            meta["roles"][len(steps)] = "aside"
            steps.append((m.aside(), day))
            day += m.gap()
    chain = sorted(meta["values"])
    earlier = chain[:-1]
    asides = [i for i, r in meta["roles"].items() if r == "aside"]
    q = fill(m.phrase("single", topic, "q", []), slot=slot)
    h = fill(m.phrase("single", topic, "h", []), slot=slot)
    sets = {"current": chain[-1:], "stale": earlier, "closed": earlier, "open": asides}
    return _record("single", topic, number, steps, q, h, sets), meta


def _multi(m: Maker, topic: str, number: int) -> Pair:
    values = m.rng.sample(m.block("multi", topic)["v"], m.rng.randint(2, 4))
    used: list[str] = []
    steps: list[tuple[str, int]] = []
    day, meta = 0, Meta(values={}, roles={})
    for i, value in enumerate(values):
        text = fill(m.phrase("multi", topic, "first" if i == 0 else "add", used), v=value)
        meta["values"][i], meta["roles"][i] = value, "value"
        steps.append((text, day))
        day += m.gap()
    every = list(range(len(values)))
    q, h = m.phrase("multi", topic, "q", []), m.phrase("multi", topic, "h", [])
    sets = {"current": every, "stale": [], "closed": [], "open": every}
    return _record("multi", topic, number, steps, q, h, sets), meta


def _third(m: Maker, topic: str, number: int, party: str, asked: str) -> Pair:
    pool = m.block("third", topic)["v"]
    n_own, n_party = (3, 2) if asked == "own" else (2, 3)
    if m.rng.random() < 0.3:
        n_own, n_party = 2, 2
    values = m.rng.sample(pool, n_own + n_party)
    order = ["own"] * n_own + ["party"] * n_party
    while True:  # both people start before either changes
        m.rng.shuffle(order)
        if order[0] != order[1]:
            break
    own_vals, party_vals = values[:n_own], values[n_own:]
    steps: list[tuple[str, int]] = []
    meta: Meta = {"values": {}, "roles": {}, "party": party, "asked": asked}
    seen = {"own": 0, "party": 0}
    used: list[str] = []
    day = 0
    for who in order:
        k = seen[who]
        value = (own_vals if who == "own" else party_vals)[k]
        key = ("own" if k == 0 else "ownchange") if who == "own" else ("pfirst", "pchange")[k > 0]
        text = fill(m.phrase("third", topic, key, used), v=value, p=party)
        meta["values"][len(steps)], meta["roles"][len(steps)] = value, who
        steps.append((text, day))
        seen[who] += 1
        day += m.gap()
    mine = [i for i, r in meta["roles"].items() if r == asked]
    theirs = [i for i, r in meta["roles"].items() if r != asked]
    last = len(steps) - 1
    open_ = [theirs[-1]] + ([mine[-1]] if mine[-1] != last else [])
    sets = {
        "current": mine[-1:],
        "stale": mine[:-1],
        "closed": mine[:-1] + theirs[:-1],
        "open": open_,
    }
    q = fill(m.phrase("third", topic, f"q_{asked}", []), p=party)
    h = fill(m.phrase("third", topic, f"h_{asked}", []), p=party)
    return _record("third", topic, number, steps, q, h, sets), meta


def _ending(m: Maker, topic: str, number: int, together: bool, aside: bool) -> Pair:
    cycles = m.rng.choice((1, 1, 2))
    values = m.rng.sample(m.block("ending", topic)["v"], cycles + 1)
    steps: list[tuple[str, int]] = []
    meta: Meta = {"values": {}, "roles": {}}
    used: list[str] = []
    day = 0

    def add(text: str, role: str, value: str | None = None) -> None:
        nonlocal day
        if value is not None:
            meta["values"][len(steps)] = value
        meta["roles"][len(steps)] = role
        steps.append((text, day))
        day += m.gap()

    add(fill(m.phrase("ending", topic, "first", used), v=values[0]), "value", values[0])
    for c in range(1, cycles + 1):
        old, new = values[c - 1], values[c]
        if aside and c == 1:
            add(m.aside(), "aside")
        if together and c == cycles:
            add(fill(m.phrase("ending", topic, "endnew", used), v=new, old=old), "value", new)
        else:
            add(fill(m.phrase("ending", topic, "end", used), old=old), "end")
            add(fill(m.phrase("ending", topic, "new", used), v=new), "value", new)
    chain = sorted(meta["values"])
    asides = [i for i, r in meta["roles"].items() if r == "aside"]
    sets = {"current": chain[-1:], "stale": chain[:-1], "closed": chain[:-1], "open": asides}
    q, h = m.phrase("ending", topic, "q", []), m.phrase("ending", topic, "h", [])
    return _record("ending", topic, number, steps, q, h, sets), meta


def _count(m: Maker, topic: str, number: int) -> Pair:
    block = m.block("count", topic)
    lo, hi = (int(x) for x in block["range"][0].split("-"))
    slo, shi = (int(x) for x in block["step"][0].split("-"))
    n = m.rng.randint(lo, hi)
    numbers = [n]
    for _ in range(m.rng.randint(1, 3)):
        numbers.append(numbers[-1] + m.rng.randint(slo, shi))
    steps: list[tuple[str, int]] = []
    meta: Meta = {"values": {}, "roles": {}}
    used: list[str] = []
    day = 0
    for i, n in enumerate(numbers):
        key = "first" if i == 0 else "change"
        if i > 0 and n == numbers[i - 1] + 1 and m.rng.random() < 0.5:
            key = "ord"
        text = fill(
            m.phrase("count", topic, key, used),
            n=str(n),
            w=WORDS[n],
            ord=ORDINALS[n],
            nth=ordinal(n),
        )
        meta["values"][i], meta["roles"][i] = str(n), key
        steps.append((text, day))
        day += m.gap()
    chain = list(range(len(numbers)))
    sets = {"current": chain[-1:], "stale": chain[:-1], "closed": chain[:-1], "open": []}
    q, h = m.phrase("count", topic, "q", []), m.phrase("count", topic, "h", [])
    return _record("count", topic, number, steps, q, h, sets), meta


def _correction(m: Maker, topic: str, number: int, shape: int) -> Pair:
    """shape 0: a bare fix the next day; 1: days later, the fix names its slot; 2: an
    unrelated statement between; 3: after a genuine change (when the slot can change)."""
    block = m.block("correction", topic)
    pairs = [tuple(p.split(" ~ ")) for p in block["v"]]
    (value, slip), *rest = m.rng.sample(pairs, len(pairs))
    steps: list[tuple[str, int]] = []
    meta: Meta = {"values": {}, "roles": {}, "templates": {}}
    used: list[str] = []
    day = 0
    genuine = shape == 3 and "change" in block
    if genuine:
        earlier = next(a for a, b in rest if value not in (a, b) and slip not in (a, b))
        text = fill(m.phrase("correction", topic, "first", used), v=earlier)
        meta["values"][0], meta["roles"][0] = earlier, "earlier"
        steps.append((text, day))
        day += m.gap(20, 90)
    key = "change" if genuine else "first"
    text = fill(m.phrase("correction", topic, key, used), v=slip)
    meta["values"][len(steps)], meta["roles"][len(steps)] = slip, "slip"
    steps.append((text, day))
    if shape == 2:
        day += m.gap(1, 4)
        meta["roles"][len(steps)] = "aside"
        steps.append((m.aside(), day))
    day += 1 if shape in (0, 3) else m.gap(2, 9)
    if shape == 0 or (shape == 3 and m.rng.random() < 0.5):
        fix = m.dealer.deal("fixnow", m.ph["generic"]["fixnow"])
    else:
        fix = m.phrase("correction", topic, "fix", used)
    meta["values"][len(steps)], meta["roles"][len(steps)] = value, "fix"
    meta["templates"][len(steps)] = fix
    steps.append((fill(fix, v=value, slip=slip), day))
    before = [i for i, r in meta["roles"].items() if r in ("earlier", "slip")]
    asides = [i for i, r in meta["roles"].items() if r == "aside"]
    sets = {"current": [len(steps) - 1], "stale": before, "closed": before, "open": asides}
    q, h = m.phrase("correction", topic, "q", []), m.phrase("correction", topic, "h", [])
    return _record("correction", topic, number, steps, q, h, sets), meta


def topics(phrases: Phrases, kind: str, group: str = "") -> list[str]:
    """The rotation of a kind's topics (a topic's ``weight`` repeats it)."""
    out: list[str] = []
    for key, block in phrases.items():
        k, _, topic = key.partition(" ")
        if k == kind and (not group or block.get("group", [""])[0] == group):
            out += [topic] * int(block.get("weight", ["1"])[0])
    return out


def build_full(seed: int = SEED) -> list[tuple[dict[str, Any], Meta]]:
    phrases = read_phrases()
    m = Maker(phrases, random.Random(seed))  # noqa: S311  (a fixed set, not a secret)
    out: list[tuple[dict[str, Any], Meta]] = []
    numbers: dict[tuple[str, str], int] = {}

    def number(kind: str, topic: str) -> int:
        numbers[kind, topic] = numbers.get((kind, topic), -1) + 1
        return numbers[kind, topic]

    for group, total in GROUPS.items():
        rot = topics(phrases, "single", group)
        for i in range(total):
            t = rot[i % len(rot)]
            out.append(_single(m, t, number("single", t), group))
    rot = topics(phrases, "multi")
    for i in range(PLAN["multi"]):
        t = rot[i % len(rot)]
        out.append(_multi(m, t, number("multi", t)))
    rot = topics(phrases, "third")
    parties = phrases["parties"]["p"]
    for i in range(PLAN["third"]):
        t = rot[i % len(rot)]
        party = m.dealer.deal("parties", parties)
        out.append(_third(m, t, number("third", t), party, ("own", "party")[i % 2]))
    rot = topics(phrases, "ending")
    for i in range(PLAN["ending"]):
        t = rot[i % len(rot)]
        out.append(_ending(m, t, number("ending", t), i % 4 == 1, i % 3 == 0))
    rot = topics(phrases, "count")
    for i in range(PLAN["count"]):
        t = rot[i % len(rot)]
        out.append(_count(m, t, number("count", t)))
    rot = topics(phrases, "correction")
    for i in range(PLAN["correction"]):
        t = rot[i % len(rot)]
        out.append(_correction(m, t, number("correction", t), i % 4))
    return out


def build(seed: int = SEED) -> list[dict[str, Any]]:
    return [seq for seq, _ in build_full(seed)]


def dump(seqs: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(seq, ensure_ascii=False) + "\n" for seq in seqs)


def main(argv: Sequence[str] | None = None) -> int:
    return write_or_check(dump(build()), PATH, argv, (__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
