"""The seventh development split of issue 47, "updates in any words"
(``hmem_bench/updates_dev7.jsonl``): a user tells an assistant things in plain text, the
values change over time, and the memory must rank the newest value first and close the
earlier ones, without closing anything it should not.

How it was written: a blind validation set, aimed at a user's name and favourite things
(the shape of the external set the reading code must eventually pass: first-person updates
of a name and of favourites, each changed 3 to 5 times, latest-value and history
questions). Its author read ``hmem_bench/updates.py`` (the runner, for the record format
and ``load``), the first three lines of ``hmem_bench/updates_dev.jsonl`` (an example), the
module docstring of ``hmem_bench/updates_data6.py`` (the schema and how split 6 was
written; not its code), ``tests/unit/hmem_bench/test_updates_data6.py`` (the shape of its
test), ``hmem_bench/updates_schema.py`` (the shared schema check, used here) and
``tests/unit/test_layering.py`` (the size limit); nothing else of the other splits (not
their generators, phrase files or other lines), nothing under ``docs/``, and no reading
code (nothing under ``hmem/``). The generator is new code, and the phrases
(``hmem_bench/updates_phrases7.txt``) were written by hand for this split. No memory
system was run on it before it was committed, and no phrase was changed to make a reader
pass or fail.

What it holds: half the sequences (every ``single``: 180 of 360, the first name four times
as often as any other topic) are about the user's name (first name, nickname, username, a
display name, surname) and favourite things (28 of them: colour, food, film, song, band,
book, author, team, season, city, drink, dessert, video game, podcast, animal, flower,
holiday destination, TV show, word, number, ...), each a chain of 3 to 5 values; most
``correction`` and every ``third`` sequence are of such slots too. The phrases are those a
chat user types, in many registers and orders, taken in turn along a chain (each pool is
shuffled once and dealt out in turn, so a chain mixes them): the value before its slot
("Teal is my favourite colour now", "Bruno, that's what friends call me these days"),
names given indirectly ("I go by Sasha now", "people know me as Mo these days"), "has
changed to", "these days it's X", "I've come round to X", "X has overtaken Y", "if I had
to pick one now it'd be X", "lately I can't get enough of X", a value described in context
("a big steaming bowl of ramen with a soft egg"), two sentences with the update in the
second, lower case without punctuation, slang ("my fave film rn is Heat tbh"), terse notes
("favourite colour: plum now") rarely; sometimes an unrelated statement in between. The
other half: ``multi`` (hobbies, languages, pets, friends, allergies, instruments that add
up and stay open), ``third`` (a relative's, friend's or colleague's favourite or name
beside the user's own; the question asks about one of them), ``ending`` (a dog died, a car
sold, a job quit, a break-up, a gym left, a nickname dropped; then a new value), ``count``
(counts and ordinals that grow), ``correction`` ("sorry, I meant X", "typo: X not Y",
"scratch that, it's X", sometimes after an earlier value). Questions in many words ("What
do I like best to eat these days?", "What name do I go by?") and history questions ("What
were all the names I gave you?", "List every favourite colour I've had"). Cases a careful
reader would find ambiguous were left out.

The schema (the one ``updates.py`` reads, as in split 6): ``steps`` the statements in
order with their day (strictly increasing, the first 0); ``current`` the steps that answer
``question`` now (for a multi-valued slot, every value); ``stale`` the earlier values of
the asked slot; ``closed`` every step a later one should close (earlier values of a
single-valued slot, the user's or a third party's, and what an ending ended); ``open`` the
steps nothing may close (additions, another person's latest value, an unrelated statement
in between), leaving out the asked slot's current value when it is the last step; an
ending statement is in neither. ``history`` asks for every value of the asked slot
(``current`` and ``stale``). Checked by ``updates_schema.problems``.

The phrase file: blocks ``== <kind> <topic>`` (and ``== generic``, ``== parties``), lines
``key: phrase | phrase``. Keys: ``v`` the values (for a correction, pairs ``X ~ Y``, the
value and its slip, either way round); ``d`` values described (``value = description``,
the description holding the value); ``slot``/``slots`` a favourite's noun, which lets the
``generic`` ``first``, ``change``, ``desc``, ``fix``, ``q`` and ``h`` pools serve the
block (a block with its own ``first`` keeps its own); ``more`` a favourite's own change
phrases; ``max`` caps a chain; ``weight`` takes a topic that many times in the rotation
(the user's name most); statement keys ``first``, ``change``, ``add``, ``end``, ``new``,
``fix``, ``own``, ``ownchange``, ``pfirst``, ``pchange``, ``ord``; questions ``q``/``h``
(``q_own``, ``q_party``, ``h_own``, ``h_party``); for counts ``unit`` (``cat/cats``),
``range`` and ``step``. Placeholders: ``{v}`` (``{V}`` capitalised), ``{old}``
(``{Old}``), ``{slot}``, ``{slots}``, ``{d}``, ``{p}``, ``{n}`` digits, ``{w}`` the number
in words, ``{ord}`` the ordinal, ``{unit}``.

``python -m hmem_bench.updates_data7`` writes the file; ``--check`` compares instead.
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

__all__ = ["PATH", "PHRASES", "PLAN", "SEED", "build", "dump", "fill", "main", "read_phrases"]

PATH = Path(__file__).with_name("updates_dev7.jsonl")
PHRASES = Path(__file__).with_name("updates_phrases7.txt")
SEED = 7419
#: Sequences of each kind, spread evenly over the kind's topics.
PLAN = {"single": 180, "multi": 40, "third": 40, "ending": 30, "count": 30, "correction": 40}
GAP = (12, 95)  # days between two statements
SLIP_GAP = (1, 2)  # days before a correction
ASIDE_SHARE = 0.2  # singles with an unrelated statement between two values
DESCRIBED_SHARE = 0.6  # later values of a favourite that have a description, described
MAX_WORDS = 30
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
)

Phrases = dict[str, dict[str, list[str]]]


def read_phrases(path: Path = PHRASES) -> Phrases:
    """The phrase file as ``{"<kind> <topic>": {key: [phrases]}}``, in file order."""
    blocks: Phrases = {}
    block: dict[str, list[str]] | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("== "):
            block = blocks.setdefault(line[3:].strip(), {})
            continue
        if block is None or ": " not in line:
            raise ValueError(f"not a phrase line: {line!r}")
        key, text = line.split(": ", 1)
        block[key.strip()] = [p.strip() for p in text.split(" | ") if p.strip()]
    return blocks


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def fill(template: str, **values: str) -> str:
    """``template`` with ``{key}`` replaced by its value and ``{Key}`` by the value
    capitalised; a placeholder left unfilled is an error."""
    out = template
    for key, value in values.items():
        out = out.replace("{" + key + "}", value).replace("{" + _cap(key) + "}", _cap(value))
    if "{" in out or "}" in out:
        raise ValueError(f"unfilled placeholder in {out!r}")
    return out


def words(text: str) -> int:
    return len(text.split())


class _Dealer:
    """Each pool shuffled once and dealt out in turn (reshuffled when it runs out), so
    that every phrase is used and a chain takes them in turn."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.decks: dict[tuple[str, ...], list[str]] = {}

    def deal(self, key: tuple[str, ...], pool: Sequence[str], avoid: set[str]) -> str:
        if not pool:
            raise ValueError(f"empty pool {key}")
        for _ in range(2 * len(pool) + 2):
            deck = self.decks.get(key)
            if not deck:
                deck = self.decks[key] = self.rng.sample(list(pool), len(pool))
            phrase = deck.pop()
            if phrase not in avoid or len(set(pool) - avoid) == 0:
                return phrase
        return phrase


class _Builder:
    def __init__(self, phrases: Phrases, seed: int) -> None:
        self.p = phrases
        self.g = phrases["generic"]
        self.rng = random.Random(seed)  # noqa: S311  (a fixed split, not a secret)
        self.dealer = _Dealer(self.rng)
        self.parties = phrases["parties"]["p"]

    def days(self, gaps: Sequence[tuple[int, int]]) -> list[int]:
        out = [0]
        for low, high in gaps:
            out.append(out[-1] + self.rng.randint(low, high))
        return out

    def pool(self, block: dict[str, list[str]], key: str) -> list[str]:
        """A block's own pool; a favourite's falls back on the generic one."""
        own = block.get(key, [])
        if key == "fix":
            return own or self.g["fix"]
        if "slot" not in block:
            return own
        if key == "change" and "first" not in block:
            return own + block.get("more", []) + self.g["change"]
        if key in ("first", "change") and key in block:
            return own
        if key in ("q", "h"):
            return own + [self.slot_fill(block, q) for q in self.g[key]]
        return own or self.g.get(key, [])

    def slot_fill(self, block: dict[str, list[str]], text: str) -> str:
        slot = block["slot"][0]
        plural = block.get("slots", [slot + "s"])[0]
        return text.replace("{slots}", plural).replace("{slot}", slot)

    def say(
        self, name: str, block: dict[str, list[str]], key: str, used: set[str], **v: str
    ) -> str:
        phrase = self.dealer.deal((name, key), self.pool(block, key), used)
        used.add(phrase)
        if "slot" in block:
            phrase = self.slot_fill(block, phrase)
        text = fill(phrase, **v)
        if words(text) > MAX_WORDS:
            raise ValueError(f"too long: {text!r}")
        return text

    def ask(self, name: str, block: dict[str, list[str]], key: str, **v: str) -> str:
        return fill(self.dealer.deal((name, key), self.pool(block, key), set()), **v)

    def record(
        self, kind: str, topic: str, number: int, texts: list[str], days: list[int], **sets: Any
    ) -> dict[str, Any]:
        seq: dict[str, Any] = {
            "id": f"{kind}-{topic}-{number:03d}",
            "kind": kind,
            "topic": topic,
            "steps": [{"text": t, "day": d} for t, d in zip(texts, days, strict=True)],
        }
        block = self.p[f"{kind} {topic}"]  # a question of the block's own, unless given
        seq["question"] = sets.pop("question", None) or self.ask(f"{kind} {topic}", block, "q")
        seq["history"] = sets.pop("history", None) or self.ask(f"{kind} {topic}", block, "h")
        for name in ("current", "stale", "closed", "open"):
            seq[name] = sorted(sets.get(name, []))
        return seq

    def single(self, topic: str, number: int) -> dict[str, Any]:
        name = f"single {topic}"
        block = self.p[name]
        cap = min(5, int(block.get("max", ["5"])[0]), len(block["v"]))
        values = self.rng.sample(block["v"], self.rng.randint(3, cap))
        described = dict(d.split(" = ", 1) for d in block.get("d", []))
        used: set[str] = set()
        texts = [self.say(name, block, "first", used, v=values[0])]
        for old, value in pairwise(values):
            if value in described and self.rng.random() < DESCRIBED_SHARE:
                texts.append(self.say(name, block, "desc", used, d=described.pop(value)))
            else:
                texts.append(self.say(name, block, "change", used, v=value, old=old))
        value_steps = list(range(len(texts)))
        aside: list[int] = []
        if self.rng.random() < ASIDE_SHARE:
            at = self.rng.randint(1, len(texts) - 1)
            texts.insert(at, self.dealer.deal(("aside",), self.g["aside"], set()))
            value_steps = [i if i < at else i + 1 for i in value_steps]
            aside = [at]
        days = self.days([GAP] * (len(texts) - 1))
        return self.record(
            "single",
            topic,
            number,
            texts,
            days,
            current=value_steps[-1:],
            stale=value_steps[:-1],
            closed=value_steps[:-1],
            open=aside,
        )

    def multi(self, topic: str, number: int) -> dict[str, Any]:
        name = f"multi {topic}"
        block = self.p[name]
        values = self.rng.sample(block["v"], self.rng.randint(2, 5))
        used: set[str] = set()
        texts = [self.say(name, block, "first", used, v=values[0])]
        texts += [self.say(name, block, "add", used, v=v) for v in values[1:]]
        every = list(range(len(texts)))
        return self.record(
            "multi",
            topic,
            number,
            texts,
            self.days([GAP] * (len(texts) - 1)),
            current=every,
            open=every,
        )

    def third(self, topic: str, number: int) -> dict[str, Any]:
        name = f"third {topic}"
        block = self.p[name]
        party = self.dealer.deal(("parties",), self.parties, set())
        asked_own = number % 3 == 0
        n_asked, n_other = self.rng.randint(2, 3), self.rng.randint(1, 2)
        n_own, n_party = (n_asked, n_other) if asked_own else (n_other, n_asked)
        values = self.rng.sample(block["v"], n_own + n_party)
        own_values, party_values = values[:n_own], values[n_own:]
        order = ["own", "party"] if self.rng.random() < 0.5 else ["party", "own"]
        rest = ["own"] * (n_own - 1) + ["party"] * (n_party - 1)
        self.rng.shuffle(rest)
        order += rest
        used: set[str] = set()
        texts: list[str] = []
        steps: dict[str, list[int]] = {"own": [], "party": []}
        for who in order:
            seen = steps[who]
            vals = own_values if who == "own" else party_values
            value = vals[len(seen)]
            if who == "own":
                key = "ownchange" if seen else "own"
                old = own_values[len(seen) - 1] if seen else ""
                texts.append(self.say(name, block, key, used, v=value, old=old))
            else:
                key = "pchange" if seen else "pfirst"
                old = party_values[len(seen) - 1] if seen else ""
                texts.append(self.say(name, block, key, used, v=value, old=old, p=party))
            seen.append(len(texts) - 1)
        asked, other = (
            (steps["own"], steps["party"]) if asked_own else (steps["party"], steps["own"])
        )
        last = len(texts) - 1
        kept = {asked[-1], other[-1]} - ({last} & {asked[-1]})
        suffix = "own" if asked_own else "party"
        return self.record(
            "third",
            topic,
            number,
            texts,
            self.days([GAP] * last),
            question=self.ask(name, block, f"q_{suffix}", p=party),
            history=self.ask(name, block, f"h_{suffix}", p=party),
            current=asked[-1:],
            stale=asked[:-1],
            closed=asked[:-1] + other[:-1],
            open=sorted(kept),
        )

    def ending(self, topic: str, number: int) -> dict[str, Any]:
        name = f"ending {topic}"
        block = self.p[name]
        before = self.rng.randint(1, 2) if "change" in block else 1
        values = self.rng.sample(block["v"], before + 1)
        used: set[str] = set()
        texts = [self.say(name, block, "first", used, v=values[0])]
        for old, value in pairwise(values[:before]):
            texts.append(self.say(name, block, "change", used, v=value, old=old))
        texts.append(self.say(name, block, "end", used, old=values[before - 1]))
        texts.append(self.say(name, block, "new", used, v=values[-1]))
        return self.record(
            "ending",
            topic,
            number,
            texts,
            self.days([GAP] * (len(texts) - 1)),
            current=[len(texts) - 1],
            stale=list(range(before)),
            closed=list(range(before)),
        )

    def count(self, topic: str, number: int) -> dict[str, Any]:
        name = f"count {topic}"
        block = self.p[name]
        one, many = block["unit"][0].split("/")
        low, high = (int(x) for x in block["range"][0].split("-"))
        s_low, s_high = (int(x) for x in block["step"][0].split("-"))
        counts = [self.rng.randint(low, high)]
        for _ in range(self.rng.randint(1, 3)):
            counts.append(counts[-1] + self.rng.randint(s_low, s_high))
        used: set[str] = set()
        texts: list[str] = []
        for i, n in enumerate(counts):
            v = {
                "n": str(n),
                "w": WORDS[n] if n < len(WORDS) else str(n),
                "unit": one if n == 1 else many,
                "ord": ORDINALS[n] if n < len(ORDINALS) else "",
            }
            key = "first" if i == 0 else "change"
            stepped_one = i > 0 and n == counts[i - 1] + 1 and n < len(ORDINALS)
            fresh = set(block.get("ord", [])) - used
            if stepped_one and fresh and self.rng.random() < 0.5:
                key = "ord"
            texts.append(self.say(name, block, key, used, **v))
        last = len(texts) - 1
        return self.record(
            "count",
            topic,
            number,
            texts,
            self.days([GAP] * last),
            current=[last],
            stale=list(range(last)),
            closed=list(range(last)),
        )

    def correction(self, topic: str, number: int) -> dict[str, Any]:
        name = f"correction {topic}"
        block = self.p[name]
        pairs = [p.split(" ~ ") for p in block["v"]]
        pair = pairs[number % len(pairs)]
        value, slip = pair if self.rng.random() < 0.5 else pair[::-1]
        used: set[str] = set()
        texts: list[str] = []
        gaps: list[tuple[int, int]] = []
        can_change = "change" in block or "slot" in block
        if can_change and number % 5 in (1, 3):  # two in five
            earlier = self.rng.choice([p[0] for p in pairs if p != pair])
            texts.append(self.say(name, block, "first", used, v=earlier))
            texts.append(self.say(name, block, "change", used, v=slip, old=earlier))
            gaps.append(GAP)
        else:
            texts.append(self.say(name, block, "first", used, v=slip))
        texts.append(self.say(name, block, "fix", used, v=value, old=slip))
        gaps.append(SLIP_GAP)
        last = len(texts) - 1
        return self.record(
            "correction",
            topic,
            number,
            texts,
            self.days(gaps),
            current=[last],
            stale=list(range(last)),
            closed=list(range(last)),
        )


def topics(phrases: Phrases, kind: str) -> list[str]:
    """A kind's topics in file order, each as many times as its ``weight`` (1 unless
    given): the rotation the kind's sequences take in turn."""
    out = []
    for key, block in phrases.items():
        if key.split(" ", 1)[0] == kind:
            out += [key.split(" ", 1)[1]] * int(block.get("weight", ["1"])[0])
    return out


def build(seed: int = SEED, path: Path = PHRASES) -> list[dict[str, Any]]:
    """Every sequence of the split, kinds in ``PLAN`` order, each kind's topics in turn."""
    phrases = read_phrases(path)
    builder = _Builder(phrases, seed)
    seqs: list[dict[str, Any]] = []
    for kind, total in PLAN.items():
        names = topics(phrases, kind)
        make = getattr(builder, kind)
        for number in range(total):
            seqs.append(make(names[number % len(names)], number))
    return seqs


def dump(seqs: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(seq, ensure_ascii=False) + "\n" for seq in seqs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file instead")
    args = parser.parse_args(argv)
    text = dump(build())
    if args.check:
        same = PATH.exists() and PATH.read_text(encoding="utf-8") == text
        print("same" if same else f"{PATH} differs from the generator's output")
        return 0 if same else 1
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} sequences to {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
