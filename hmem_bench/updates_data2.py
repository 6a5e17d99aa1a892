"""A second development split for issue 47, generated differently from the first
(``hmem_bench.updates_data``): other templates, other phrasings, other values, another
seed, written for hmem after the slot reading and its threshold were fixed on the first
split (no sentence comes from a benchmark or a golden file). It is what shows whether the
reading generalises: nothing is tuned on it.

``python -m hmem_bench.updates_data2`` writes ``hmem_bench/updates_dev2.jsonl``;
``python -m hmem_bench.updates --data hmem_bench/updates_dev2.jsonl`` measures it.
The sequence format is the first split's (see ``hmem_bench.updates_data``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from hmem_bench import updates_data as first
from hmem_bench.updates_data import Seq

__all__ = ["PATH", "build", "main"]

PATH = Path(__file__).with_name("updates_dev2.jsonl")

FIRST = [
    "Alba", "Benedikt", "Camila", "Dario", "Emeka", "Freya", "Goran", "Hiroshi", "Isla",
    "Jovan", "Kalani", "Linnea", "Marek", "Noor", "Otto", "Paloma", "Ruben", "Saskia",
    "Tomas", "Ulla", "Valentin", "Wanjiru", "Ximena", "Yara", "Zeno",
]  # fmt: skip
PEOPLE = [
    "Arjun", "Brigid", "Caspar", "Delphine", "Eero", "Fatima", "Gideon", "Hedda", "Idris",
    "Juno", "Kasimir", "Leila",
]  # fmt: skip
CITIES = [
    "Utrecht", "Porto Alegre", "Cork", "Graz", "Aarhus", "Bilbao", "Turin", "Brno",
    "Halifax", "Adelaide", "Accra", "Sapporo", "Quito", "Riga", "Bruges", "Trondheim",
]  # fmt: skip
COMPANIES = [
    "Kestrel Analytics", "Marigold Insurance", "Brightwater", "Ironbark Mining",
    "Juniper Media", "Solstice Energy", "Harbor Lane", "Nimbus Cloud",
]  # fmt: skip
ROLES = [
    "librarian", "electrician", "physiotherapist", "sous chef", "radiographer",
    "landscape gardener", "flight attendant", "copywriter",
]  # fmt: skip
FAVOURITES: dict[str, list[str]] = {
    "cheese": ["brie", "gouda", "halloumi", "manchego", "stilton"],
    "city": ["Kyoto", "Marrakech", "Edinburgh", "Havana", "Prague"],
    "podcast": ["Radiolab", "Serial", "Planet Money", "Criminal", "Reply All"],
    "painter": ["Vermeer", "Hokusai", "Frida Kahlo", "Turner", "Klimt"],
    "dessert": ["tiramisu", "baklava", "creme brulee", "mochi", "pavlova"],
    "tree": ["oak", "birch", "cherry blossom", "maple", "willow"],
}
PETS = ["dog", "cat", "ferret", "budgie", "goldfish"]
PET_NAMES = ["Pickle", "Juniper", "Waffles", "Sprout", "Comet", "Bramble", "Toffee"]
HOBBIES = ["bouldering", "calligraphy", "beekeeping", "kayaking", "crochet", "astronomy"]
LANGUAGES = ["French", "Mandarin", "Greek", "Dutch", "Hindi", "Turkish"]
INSTRUMENTS = ["cello", "ukulele", "drums", "clarinet", "banjo"]


def names(r: random.Random) -> None:
    firsts: list[Callable[[str], str]] = [
        lambda v: f"Hello there, my name's {v}.",
        lambda v: f"People know me as {v}.",
        lambda v: f"The name is {v}.",
    ]
    later: list[Callable[[str], str]] = [
        lambda v: f"I've started going by {v}.",
        lambda v: f"From today please address me as {v}.",
        lambda v: f"I legally changed my name; it's {v} now.",
        lambda v: f"Friends know me as {v} these days.",
        lambda v: f"Just so you know, I'm {v} now, not my old name.",
    ]
    for _ in range(24):
        first._chain(
            r, "single", "name", r.choice(firsts), later, FIRST, "What's my name?",
            "What names have I used over time?", 2, 4,
        )  # fmt: skip


def favourites(r: random.Random) -> None:
    firsts: list[Callable[[str, str], str]] = [
        lambda s, v: f"The {s} I like most is {v}.",
        lambda s, v: f"My top {s} has always been {v}.",
    ]
    later: list[Callable[[str, str], str]] = [
        lambda s, v: f"I've fallen for {v}; it's my favourite {s} now.",
        lambda s, v: f"These days the {s} I like most is {v}.",
        lambda s, v: f"My favourite {s}? Definitely {v} now.",
        lambda s, v: f"I now like {v} best of all the {s}s.",
    ]
    for _ in range(30):
        slot = r.choice(sorted(FAVOURITES))
        f = r.choice(firsts)
        later_s = [first._bind(g, slot) for g in later]
        first._chain(
            r, "single", "favourite", first._bind(f, slot), later_s, FAVOURITES[slot],
            f"Which {slot} do I like most?", None, 2, 3,
        )  # fmt: skip
    for _ in range(8):
        slot = r.choice(sorted(FAVOURITES))
        who = r.choice(PEOPLE)
        a, b = r.sample(FAVOURITES[slot], 2)
        texts = [
            f"{who} loves {a} more than any other {slot}.",
            f"{who}'s favourite {slot} is {b} now.",
        ]
        first._add(
            "single", texts, f"What is {who}'s favourite {slot}?", [1], [0], [0], topic="favourite3"
        )


def homes(r: random.Random) -> None:
    firsts: list[Callable[[str], str]] = [
        lambda v: f"I've lived in {v} for years.",
        lambda v: f"I rent a flat in {v}.",
        lambda v: f"My place is in {v}.",
    ]
    later: list[Callable[[str], str]] = [
        lambda v: f"We packed up and moved to {v}.",
        lambda v: f"I've relocated to {v} for good.",
        lambda v: f"I now call {v} home.",
        lambda v: f"Just unpacked the last boxes in my new place in {v}.",
        lambda v: f"I left my old city; I live in {v} now.",
    ]
    for _ in range(20):
        first._chain(
            r, "single", "home", r.choice(firsts), later, CITIES, "Where am I living now?",
            "Which cities have I lived in?", 2, 4,
        )  # fmt: skip
    for _ in range(8):
        who = r.choice(PEOPLE)
        a, b = r.sample(CITIES, 2)
        texts = [f"{who} has a house in {a}.", f"{who} sold the house and moved to {b}."]
        first._add("single", texts, f"Where does {who} live?", [1], [0], [0], topic="home3")


def jobs(r: random.Random) -> None:
    firsts: list[Callable[[str], str]] = [
        lambda v: f"I'm on the payroll at {v}.",
        lambda v: f"I've been with {v} since college.",
        lambda v: f"I work for {v}.",
    ]
    later: list[Callable[[str], str]] = [
        lambda v: f"I accepted an offer from {v}.",
        lambda v: f"Today was my first day at {v}.",
        lambda v: f"I'm working at {v} now.",
        lambda v: f"I handed in my notice and moved over to {v}.",
    ]
    for _ in range(18):
        first._chain(
            r, "single", "employer", r.choice(firsts), later, COMPANIES,
            "Which company do I work for?", None, 2, 3,
        )  # fmt: skip
    rfirst: list[Callable[[str], str]] = [
        lambda v: f"I'm a {v}.",
        lambda v: f"I earn my living as a {v}.",
    ]
    rlater: list[Callable[[str], str]] = [
        lambda v: f"I've retrained as a {v}.",
        lambda v: f"I'm a {v} now.",
        lambda v: f"I got a job as a {v}.",
    ]
    for _ in range(12):
        first._chain(
            r, "single", "role", r.choice(rfirst), rlater, ROLES, "What is my profession?",
            None, 2, 3,
        )  # fmt: skip


def partners(r: random.Random) -> None:
    for _ in range(8):
        a, b = r.sample(PEOPLE, 2)
        texts = [
            r.choice([f"I've been going out with {a} for a year.", f"{a} and I are a couple."]),
            r.choice([f"{a} and I called it quits.", f"{a} and I are no longer together."]),
            r.choice([f"I've met someone new: {b}.", f"{b} is my boyfriend now."]),
        ]
        first._add("ending", texts, "Who am I with?", [2], [0], [0], topic="partner")


def birthdays(r: random.Random) -> None:
    for _ in range(10):
        m = r.choice(first.MONTHS)
        d = r.randint(1, 9)
        e = d + 11
        texts = [
            r.choice([f"My birthday falls on {m} {d}.", f"I celebrate my birthday on {m} {d}."]),
            r.choice(
                [
                    f"Oops, my birthday is {m} {e}, not {m} {d}.",
                    f"I made a mistake earlier: my birthday is on {m} {e}.",
                ]
            ),
        ]
        first._add("correction", texts, "What's my birthday?", [1], [0], [0], topic="birthday")
    for _ in range(8):
        age = r.randint(25, 60)
        texts = [
            f"I'm {age} years old.",
            r.choice(
                [f"Just had my birthday, so I'm {age + 1} now.", f"I turned {age + 1} last week."]
            ),
        ]
        first._add("single", texts, "What is my age?", [1], [0], [0], topic="age")


def counts(r: random.Random) -> None:
    for _ in range(8):
        n = r.randint(1, 3)
        texts = [
            f"We have {first.NUMBER_WORDS[n]} kids.",
            r.choice(
                [
                    f"Baby number {n + 1} arrived on Sunday, so we have "
                    f"{first.NUMBER_WORDS[n + 1]} kids now.",
                    f"Our {first.ORDINALS[n + 1]} baby was born this week.",
                ]
            ),
        ]
        first._add("count", texts, "How many kids do we have?", [1], [0], [0], topic="count")
    for _ in range(6):
        who = r.choice(PEOPLE)
        n = r.randint(1, 3)
        texts = [
            f"{who} has {first.NUMBER_WORDS[n]} grandchildren.",
            f"{who} now has {first.NUMBER_WORDS[n + 1]} grandchildren.",
        ]
        first._add(
            "count",
            texts,
            f"How many grandchildren does {who} have?",
            [1],
            [0],
            [0],
            topic="count3",
        )


def switches(r: random.Random) -> None:
    for _ in range(8):
        a, b = r.sample(INSTRUMENTS, 2)
        texts = [
            f"I play the {a} in a small band.",
            r.choice(
                [
                    f"I gave the {a} away and switched to the {b}.",
                    f"I play the {b} now instead of the {a}.",
                ]
            ),
        ]
        first._add("single", texts, "Which instrument do I play?", [1], [0], [0], topic="switch")
    gyms = ["yoga", "pilates", "spinning", "crossfit", "swimming laps"]
    for _ in range(6):
        a, b = r.sample(gyms, 2)
        texts = [f"My workout of choice is {a}.", f"I swapped {a} for {b}."]
        first._add("single", texts, "What workout do I do?", [1], [0], [0], topic="switch")


def endings(r: random.Random) -> None:
    for _ in range(8):
        pet = r.choice(PETS)
        a, b = r.sample(PET_NAMES, 2)
        texts = [
            f"We have a {pet} called {a}.",
            r.choice([f"Sad news: {a} died on Tuesday.", f"Our {pet} {a} passed away."]),
            f"We brought home a new {pet} named {b}.",
        ]
        first._add("ending", texts, f"What is our {pet} called?", [2], [0], [0], topic="pet")
    for _ in range(6):
        a, b = r.sample(COMPANIES, 2)
        texts = [
            f"I work for {a}.",
            r.choice([f"I resigned from {a}.", f"I stopped working for {a}."]),
            f"I've just joined {b}.",
        ]
        first._add("ending", texts, "Who do I work for?", [2], [0], [0], topic="employer")


def multi(r: random.Random) -> None:
    for _ in range(10):
        hs = r.sample(HOBBIES, 3)
        texts = [
            f"I spend Saturdays {hs[0]}." if hs[0].endswith("ing") else f"I love {hs[0]}.",
            f"I've also picked up {hs[1]}.",
            f"Another hobby of mine: {hs[2]}.",
        ]
        first._add(
            "multi", texts, "What hobbies do I have?", [0, 1, 2], open_=[0, 1, 2], topic="hobbies"
        )
    for _ in range(8):
        ls = r.sample(LANGUAGES, 2)
        texts = [f"I'm fluent in {ls[0]}.", f"I can get by in {ls[1]} too."]
        first._add(
            "multi", texts, "What languages do I know?", [0, 1], open_=[0, 1], topic="languages"
        )
    for _ in range(8):
        p1, p2 = r.sample(PETS, 2)
        a, b = r.sample(PET_NAMES, 2)
        texts = [f"We have a {p1} called {a}.", f"We added a {p2} named {b} to the family."]
        first._add("multi", texts, "What pets do we have?", [0, 1], open_=[0, 1], topic="pets")
    for _ in range(6):
        i1, i2 = r.sample(INSTRUMENTS, 2)
        texts = [f"I play the {i1}.", f"I also play the {i2}."]
        first._add(
            "multi",
            texts,
            "Which instruments do I play?",
            [0, 1],
            open_=[0, 1],
            topic="instruments",
        )


def third(r: random.Random) -> None:
    rels = ["aunt", "uncle", "roommate", "boss", "daughter", "son"]
    for _ in range(8):
        a, b = r.sample(CITIES, 2)
        rel = r.choice(rels)
        texts = [f"I live in {a}.", f"My {rel} relocated to {b}."]
        first._add("third", texts, "Where do I live?", [0], [], [], [0, 1], topic="home")
    for _ in range(8):
        a, b = r.sample(COMPANIES, 2)
        who = r.choice(PEOPLE)
        texts = [f"I work for {a}.", f"{who} just started a new job at {b}."]
        first._add("third", texts, "Who do I work for?", [0], [], [], [0, 1], topic="employer")
    for _ in range(6):
        slot = r.choice(sorted(FAVOURITES))
        a, b = r.sample(FAVOURITES[slot], 2)
        who = r.choice(PEOPLE)
        texts = [f"My favourite {slot} is {a}.", f"{who} says her favourite {slot} is {b}."]
        first._add(
            "third", texts, f"What is my favourite {slot}?", [0], [], [], [0, 1], topic="favourite"
        )
    for _ in range(6):
        a, b = r.sample(FIRST, 2)
        rel = r.choice(rels)
        texts = [f"My name is {a}.", f"My {rel} is called {b}."]
        first._add("third", texts, "What is my name?", [0], [], [], [0, 1], topic="name")


def build(seed: int = 4702) -> list[Seq]:
    first._seqs.clear()
    r = random.Random(seed)  # noqa: S311  (a fixed data set, not a secret)
    for part in (
        names,
        favourites,
        homes,
        jobs,
        partners,
        birthdays,
        counts,
        switches,
        endings,
        multi,
        third,
    ):
        part(r)
    seqs = list(first._seqs)
    first._seqs.clear()
    for seq in seqs:
        seq["id"] = "b-" + seq["id"]
    return seqs


def main() -> int:
    seqs = build()
    PATH.write_text("".join(json.dumps(s) + "\n" for s in seqs), encoding="utf-8")
    print(f"{len(seqs)} sequences -> {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
