"""The eighth development split of issue 47, "updates in any words"
(``hmem_bench/updates_dev8.jsonl``): a user tells an assistant things in plain text over
days, the values change, and the memory must rank the newest value first and close the
earlier ones, without closing anything it should not (values that add up, another
person's values, unrelated statements).

How it was written: a blind validation set; the people tuning the reader see only its
figures. Its author read ``hmem_bench/updates.py`` (the runner, for the record format and
``load``), the first three lines of ``hmem_bench/updates_dev.jsonl`` (an example), the
module docstring of ``hmem_bench/updates_data7.py`` (the schema and how split 7 was
written; not its code), ``tests/unit/hmem_bench/test_updates_data7.py`` (the shape of a
split's test), ``hmem_bench/updates_schema.py`` (the shared schema check, used here) and
``tests/unit/test_layering.py`` (the size limit); nothing else of the other splits (not
their generators, phrase files or other lines), nothing under ``docs/`` and no reading code
(nothing under ``hmem/``). The generator is new code and the phrases
(``hmem_bench/updates_phrases8.txt``) were written by hand for this split. No memory system
or reader was run on it before it was committed, and no phrase was changed to make a
reader pass or fail.

What it holds (360 sequences), a different emphasis from split 7: life facts that change.
``single`` 150: a third (50) the user's name (first name, nickname, username, surname, how
to be addressed; the first name twice as often) and favourite things (colour, food, film,
band, book, team, drink, TV show), chains of 3 to 5 values; two thirds (100) life facts:
home city (twice as often; moves, "moved from A to B last month" then "just moved to X"),
neighbourhood, employer, job title, manager, partner, car, phone, gym, doctor, a child's
school, milk ("switched to oat milk; no longer drink cow's milk"), diet, birthday, age,
email address, hairstyle and commute, chains of 2 to 5 (a birthday 2, ages a year apart).
``multi`` 40 (hobbies, languages, pets, friends, allergies, countries visited,
instruments: they add up and all stay current). ``third`` 40 (a relative's, partner's,
friend's or colleague's city, employer, car, favourite food, favourite band or phone beside
the user's own; half the questions ask about the other person, half about the user).
``ending`` 40 (a pet died, a car sold, a break-up, a job quit, a gym cancelled, a flatmate
moved out; then a new value, sometimes the end and the new value in one message).
``count`` 40 (children, grandchildren, cats, marathons, books read this year, years at a
company; digits, number words and ordinals, an ordinal always one more: "our third baby").
``correction`` 50 (a slip put right: "Correction: my birthday is actually March 13, not
March 3", "sorry, I meant X", "wait no, X", "I mistyped, it's X", "actually scratch that",
"I said Y earlier but it's X"; the day after, or days later with an unrelated statement
between, in which case the fix names its slot; sometimes after an earlier genuine change).
Phrasings as chat users type them: long messages with the update one clause among other
news, the value before its slot, indirect words ("these days I answer to Bex"), values
described, "has changed to", "no longer", "not X anymore", "X is out, Y is in", lower case,
slang, typos in the words around the value, terse notes ("new job @ Blue Bottle, start
monday"); questions in many words and history questions ("Every city I've lived in?").
About one single in seven, 16 endings and 20 corrections hold an unrelated statement
between two values (in ``open``). Cases a careful reader would find ambiguous were left out.

The schema (as split 7's): ``steps`` the statements in order with their day (strictly
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
correction ``value ~ slip``); ``d`` described values (``value = description``, the
description holds the value) for ``dchange``; ``slot``/``slots`` a favourite's noun (the
``generic`` ``fav_*`` pools then serve the block too); ``x`` one pick per sequence (a
species, a child, a surname, an employer); ``group`` (``personal`` or ``life``, singles);
``weight``, ``max``, ``gap`` (days between values, ``lo-hi``), ``range`` (consecutive
numbers) and ``step``; statements ``first``, ``change``, ``add``, ``own``, ``ownchange``,
``pfirst``, ``pchange``, ``end``, ``new``, ``endnew``, ``ord``, ``fix`` (and the generic
``fixnow``, ``aside``); questions ``q``/``h`` (``q_own``, ``q_party``, ``h_own``, ``h_party``).
Placeholders ``{v}`` (``{V}`` capitalised), ``{old}``, ``{slip}``, ``{slot}``, ``{slots}``,
``{d}``, ``{p}``, ``{x}``, ``{n}`` digits, ``{w}`` a number word, ``{ord}`` an ordinal word,
``{nth}`` a digit ordinal. Each pool is shuffled once and dealt in turn, so a chain mixes
its phrases and no phrase is used much more than another.

``python -m hmem_bench.updates_data8`` writes the file; ``--check`` compares instead.
Seeded (``SEED``): the same file every time.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from hmem_bench.updates_schema import write_or_check

__all__ = [
    "GROUPS",
    "MAX_WORDS",
    "ORDINALS",
    "PATH",
    "PHRASES",
    "PLAN",
    "SEED",
    "WORDS",
    "build",
    "build_full",
    "dump",
    "fill",
    "main",
    "ordinal",
    "read_phrases",
    "topics",
]

PATH = Path(__file__).with_name("updates_dev8.jsonl")
PHRASES = Path(__file__).with_name("updates_phrases8.txt")
SEED = 8123
#: Sequences of each kind, spread in turn over the kind's topics.
PLAN = {"single": 150, "multi": 40, "third": 40, "ending": 40, "count": 40, "correction": 50}
#: The singles' two groups: names and favourite things, then life facts.
GROUPS = {"single": (("personal", 50), ("life", 100))}
MAX_WORDS = 40
_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
_ORDINALS = (
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
    "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
    "twentieth"
)
WORDS = tuple(_WORDS.split())
ORDINALS = tuple(_ORDINALS.split())

Block = dict[str, list[str]]
Phrases = dict[str, Block]
Meta = dict[str, Any]


def read_phrases(path: Path = PHRASES) -> Phrases:
    blocks: Phrases = {}
    block: Block | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            name = line[3:].strip()
            if name in blocks:
                raise ValueError(f"line {number}: block {name!r} twice")
            block = blocks[name] = {}
            continue
        key, sep, rest = line.partition(": ")
        if block is None or not sep or " " in key:
            raise ValueError(f"line {number}: not 'key: phrase | phrase': {raw!r}")
        block.setdefault(key, []).extend(p.strip() for p in rest.split(" | ") if p.strip())
    return blocks


def ordinal(n: int) -> str:
    """The digit ordinal: 1st, 2nd, 3rd, 11th, 22nd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _numbers(n: int) -> dict[str, Any]:
    return {
        "n": str(n),
        "w": WORDS[n] if n < len(WORDS) else str(n),
        "ord": ORDINALS[n] if n < len(ORDINALS) else ordinal(n),
        "nth": ordinal(n),
    }


def fill(template: str, **values: Any) -> str:
    """The template with its placeholders filled (``{V}``: the value capitalised)."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key.lower() not in values:
            raise ValueError(f"unfilled placeholder {{{key}}} in {template!r}")
        text = str(values[key.lower()])
        return text[:1].upper() + text[1:] if key[:1].isupper() else text

    return re.sub(r"\{(\w+)\}", one, template)


def words(text: str) -> int:
    return len(text.split())


def topics(phrases: Phrases, kind: str, group: str = "") -> list[str]:
    """The kind's topics in file order, each as many times as its weight."""
    out: list[str] = []
    for name, block in phrases.items():
        head, _, topic = name.partition(" ")
        if head == kind and block.get("group", [""])[0] == group:
            out += [topic] * int(block.get("weight", ["1"])[0])
    return out


def plan(phrases: Phrases) -> list[tuple[str, str]]:
    """(kind, topic) of every sequence, in order."""
    out: list[tuple[str, str]] = []
    for kind, total in PLAN.items():
        for group, count in GROUPS.get(kind, (("", total),)):
            rotation = topics(phrases, kind, group)
            out += [(kind, rotation[i % len(rotation)]) for i in range(count)]
    return out


class Deck:
    """Every pool shuffled once and dealt in turn (shuffled again when spent)."""

    def __init__(self, phrases: Phrases, rng: random.Random) -> None:
        self.phrases, self.rng = phrases, rng
        self.left: dict[tuple[str, str], list[str]] = {}

    def pool(self, name: str, key: str) -> list[str]:
        block = self.phrases[name]
        own = list(block.get(key, []))
        if "slot" in block:
            own += self.phrases["generic"].get(f"fav_{key}", [])
        return own

    def deal(self, name: str, key: str, used: Collection[str] = ()) -> str:
        """The next phrase of the pool, skipping those ``used`` (the sequence's own) while
        another is left to deal."""
        pool = self.pool(name, key)
        if not pool:
            raise KeyError(f"{name}: no {key}")
        left = self.left.setdefault((name, key), [])
        if not [p for p in left if p not in used]:
            left[:0] = self.rng.sample(pool, len(pool))
        fresh = [i for i, p in enumerate(left) if p not in used]
        return left.pop(fresh[-1] if fresh else -1)


class Chain:
    """The statements of one sequence as they are written, with what each one is."""

    def __init__(self, rng: random.Random, block: Block) -> None:
        self.rng = rng
        lo, hi = (int(x) for x in block.get("gap", ["3-60"])[0].split("-"))
        self.gap = (lo, hi)
        self.steps: list[dict[str, Any]] = []
        self.meta: Meta = {"values": {}, "roles": {}, "templates": {}}

    def add(self, template: str, role: str, gap: int | None = None, **values: Any) -> int:
        if self.steps:
            gap = gap if gap is not None else self.rng.randint(*self.gap)
            day = self.steps[-1]["day"] + gap
        else:
            day = 0
        self.steps.append({"text": fill(template, **values), "day": day})
        at = len(self.steps) - 1
        self.meta["roles"][at] = role
        self.meta["templates"][at] = template
        if "v" in values and role != "aside":
            self.meta["values"][at] = str(values["v"])
        return at

    def pick(self, deck: Deck, name: str, key: str) -> str:
        """A phrase this sequence has not used yet (while the pool has one)."""
        return deck.deal(name, key, set(self.meta["templates"].values()))

    def aside(self, deck: Deck) -> int:
        return self.add(self.pick(deck, "generic", "aside"), "aside", self.rng.randint(1, 3))


def _values(rng: random.Random, block: Block, count: int, x: str) -> list[str]:
    if "range" in block:
        lo, hi = (int(v) for v in block["range"][0].split("-"))
        start = rng.randint(lo, hi - count + 1)
        return [str(start + i) for i in range(count)]
    return [fill(v, x=x) for v in rng.sample(block["v"], count)]


def _length(rng: random.Random, block: Block, lo: int, hi: int) -> int:
    return rng.randint(lo, min(hi, int(block.get("max", [str(hi)])[0])))


def _single(deck: Deck, name: str, chain: Chain, x: str, group: str) -> dict[str, Any]:
    rng, block = chain.rng, deck.phrases[name]
    vals = _values(rng, block, _length(rng, block, 3 if group == "personal" else 2, 5), x)
    slot = block.get("slot", [""])[0]
    described = dict(d.split(" = ", 1) for d in block.get("d", []))
    aside = rng.randrange(1, len(vals)) if len(vals) > 2 and rng.random() < 0.22 else 0
    at: list[int] = []
    for j, v in enumerate(vals):
        if j and j == aside:
            chain.aside(deck)
        used = set(chain.meta["templates"].values())
        if not j:
            key = "first"
        elif v in described and set(block.get("dchange", [])) - used and rng.random() < 0.5:
            key = "dchange"
        else:
            key = "change"
        old = vals[j - 1] if j else None
        extra: dict[str, Any] = {"old": old} if old is not None else {}
        at.append(
            chain.add(
                chain.pick(deck, name, key),
                "value",
                v=v,
                slot=slot,
                x=x,
                d=described.get(v),
                **extra,
            )
        )
    asides = [i for i, r in chain.meta["roles"].items() if r == "aside"]
    return {"current": at[-1:], "stale": at[:-1], "closed": at[:-1], "open": asides}


def _multi(deck: Deck, name: str, chain: Chain, x: str) -> dict[str, Any]:
    rng, block = chain.rng, deck.phrases[name]
    vals = _values(rng, block, _length(rng, block, 2, 5), x)
    for j, v in enumerate(vals):
        chain.add(chain.pick(deck, name, "add" if j else "first"), "value", v=v, x=x)
    every = list(range(len(vals)))
    return {"current": every, "stale": [], "closed": [], "open": every}


def _third(deck: Deck, name: str, chain: Chain, p: str, own: bool) -> dict[str, Any]:
    rng, block = chain.rng, deck.phrases[name]
    asked, other = rng.choice(((2, 1), (2, 2), (3, 1), (3, 2)))
    owners = ["asked"] * asked + ["other"] * other
    while True:
        rng.shuffle(owners)
        if owners[-1] == "asked" or rng.random() < 0.5:
            break
    vals = rng.sample(block["v"], len(owners))
    seen: dict[str, list[int]] = {"asked": [], "other": []}
    for who, v in zip(owners, vals, strict=True):
        mine = (who == "asked") == own
        key = ("ownchange" if mine else "pchange") if seen[who] else ("own" if mine else "pfirst")
        seen[who].append(
            chain.add(chain.pick(deck, name, key), "user" if mine else "party", v=v, p=p)
        )
    last = len(owners) - 1
    kept = [seen["other"][-1]] + ([seen["asked"][-1]] if seen["asked"][-1] != last else [])
    closed = sorted(seen["asked"][:-1] + seen["other"][:-1])
    return {
        "current": seen["asked"][-1:],
        "stale": seen["asked"][:-1],
        "closed": closed,
        "open": sorted(kept),
    }


def _ending(deck: Deck, name: str, chain: Chain, x: str, shape: int) -> dict[str, Any]:
    rng, block = chain.rng, deck.phrases[name]
    if shape == 3 and "change" not in block:
        shape = 0
    vals = _values(rng, block, 3 if shape == 3 else 2, x)
    at = [chain.add(chain.pick(deck, name, "first"), "value", v=vals[0], x=x)]
    if shape == 1:
        chain.aside(deck)
    if shape == 3:
        at.append(chain.add(chain.pick(deck, name, "change"), "value", v=vals[1], old=vals[0], x=x))
    if shape == 2:
        at.append(
            chain.add(chain.pick(deck, name, "endnew"), "value", v=vals[-1], old=vals[0], x=x)
        )
    else:
        chain.add(chain.pick(deck, name, "end"), "end", old=vals[-2], x=x)
        if shape == 4:
            chain.aside(deck)
        at.append(chain.add(chain.pick(deck, name, "new"), "value", v=vals[-1], x=x))
    asides = [i for i, r in chain.meta["roles"].items() if r == "aside"]
    return {"current": at[-1:], "stale": at[:-1], "closed": at[:-1], "open": asides}


def _count(deck: Deck, name: str, chain: Chain, x: str) -> dict[str, Any]:
    rng, block = chain.rng, deck.phrases[name]
    lo, hi = (int(v) for v in block["range"][0].split("-"))
    jump = int(block.get("step", ["1"])[0])
    n = rng.randint(lo, hi)
    at = [chain.add(chain.pick(deck, name, "first"), "value", v=n, x=x, **_numbers(n))]
    for _ in range(_length(rng, block, 2, 4) - 1):
        if "ord" in block and rng.random() < 0.5:
            n, key = n + 1, "ord"
        else:
            n, key = n + rng.randint(1, jump), "change"
        at.append(chain.add(chain.pick(deck, name, key), "value", v=n, x=x, **_numbers(n)))
    return {"current": at[-1:], "stale": at[:-1], "closed": at[:-1], "open": []}


def _correction(deck: Deck, name: str, chain: Chain, shape: int) -> dict[str, Any]:
    rng, block = chain.rng, deck.phrases[name]
    if shape in (1, 3) and "change" not in block:
        shape -= 1
    value, slip = chain.pick(deck, name, "v").split(" ~ ")
    at: list[int] = []
    if shape in (1, 3):
        others = [p.split(" ~ ")[0] for p in block["v"]]
        earlier = rng.choice([o for o in others if o not in (value, slip)])
        at.append(chain.add(chain.pick(deck, name, "first"), "earlier", v=earlier))
        at.append(chain.add(chain.pick(deck, name, "change"), "slip", v=slip, old=earlier))
    else:
        at.append(chain.add(chain.pick(deck, name, "first"), "slip", v=slip))
    if shape in (2, 3):
        chain.aside(deck)
    if shape in (0, 1):
        fix = chain.add(chain.pick(deck, "generic", "fixnow"), "fix", 1, v=value, slip=slip)
    else:
        fix = chain.add(chain.pick(deck, name, "fix"), "fix", rng.randint(1, 4), v=value, slip=slip)
    asides = [i for i, r in chain.meta["roles"].items() if r == "aside"]
    return {"current": [fix], "stale": at, "closed": at, "open": asides}


def build_full(seed: int = SEED) -> list[tuple[dict[str, Any], Meta]]:
    """Every sequence with what the generator knows of it (each step's value and role, the
    template it came from, the other person and whom the question asks about)."""
    phrases = read_phrases()
    rng = random.Random(seed)  # noqa: S311  (a fixed sample, not a secret)
    deck = Deck(phrases, rng)
    out: list[tuple[dict[str, Any], Meta]] = []
    local: dict[str, int] = {}
    for number, (kind, topic) in enumerate(plan(phrases)):
        name = f"{kind} {topic}"
        block = phrases[name]
        chain = Chain(rng, block)
        x = chain.pick(deck, name, "x") if "x" in block else ""
        turn = local[kind] = local.get(kind, -1) + 1
        fields: dict[str, Any] = {"slot": block.get("slot", [""])[0], "x": x}
        fields["slots"] = block.get("slots", [fields["slot"] + "s"])[0]
        if kind == "single":
            group = block["group"][0]
            sets = _single(deck, name, chain, x, group)
        elif kind == "multi":
            sets = _multi(deck, name, chain, x)
        elif kind == "third":
            fields["p"] = deck.deal("parties", "p")
            own = (turn + turn // len(topics(phrases, kind))) % 2 == 0
            sets = _third(deck, name, chain, fields["p"], own)
            chain.meta.update(party=fields["p"], asked="own" if own else "party")
        elif kind == "ending":
            sets = _ending(deck, name, chain, x, turn % 5)
        elif kind == "count":
            sets = _count(deck, name, chain, x)
        else:
            sets = _correction(deck, name, chain, turn % 5)
        suffix = ("_own" if chain.meta["asked"] == "own" else "_party") if kind == "third" else ""
        seq = {
            "id": f"{kind}-{topic}-{number:03d}",
            "kind": kind,
            "topic": topic,
            "steps": chain.steps,
            "question": fill(deck.deal(name, "q" + suffix), **fields),
            "history": fill(deck.deal(name, "h" + suffix), **fields),
            **sets,
        }
        out.append((seq, chain.meta))
    return out


def build(seed: int = SEED) -> list[dict[str, Any]]:
    return [seq for seq, _ in build_full(seed)]


def dump(seqs: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(seq, ensure_ascii=False) + "\n" for seq in seqs)


def main(argv: Sequence[str] | None = None) -> int:
    return write_or_check(dump(build()), PATH, argv, (__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
