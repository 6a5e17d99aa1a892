"""The development set of issue 47: update sequences in many phrasings, written for hmem
(no sentence comes from a benchmark or a golden file). ``python -m hmem_bench.updates_data``
writes ``hmem_bench/updates_dev.jsonl`` from the templates below, deterministically (one
seed); ``python -m hmem_bench.updates`` measures it.

A sequence is a few statements of one user, days apart, then a question:

- ``current``: the statements that answer it now (one for a single-valued slot, all the
  values of a multi-valued one), ``stale``: earlier values that must not rank first;
- ``closed``: statements a conservative reader should close (earlier values of a
  single-valued slot, what an ending ends); ``open``: statements nothing may close
  (additions to a multi-valued slot, another person's value);
- ``kind``: single, multi, third (third parties kept apart), ending, correction, count;
- ``history`` (some): a question about all the values, answered in history mode.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["PATH", "build", "main"]

PATH = Path(__file__).with_name("updates_dev.jsonl")

FIRST = [
    "Ana",
    "Bruno",
    "Chloe",
    "Dmitri",
    "Elif",
    "Farah",
    "Gustav",
    "Hana",
    "Ivo",
    "Jade",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Soren",
    "Tara",
    "Umar",
    "Vera",
    "Wes",
    "Xenia",
    "Yusuf",
    "Zoe",
    "Aiko",
    "Bea",
    "Cyrus",
    "Dalia",
]
PEOPLE = [
    "Sam",
    "Mia",
    "Jonas",
    "Lucia",
    "Theo",
    "Amara",
    "Felix",
    "Ines",
    "Rahul",
    "Greta",
    "Pablo",
    "Keiko",
    "Malik",
    "Oona",
    "Viktor",
    "Selma",
]
CITIES = [
    "Lisbon",
    "Porto",
    "Rome",
    "Vienna",
    "Oslo",
    "Dublin",
    "Krakow",
    "Seville",
    "Lyon",
    "Munich",
    "Toronto",
    "Melbourne",
    "Nairobi",
    "Osaka",
    "Bogota",
    "Tallinn",
    "Ghent",
    "Bergen",
    "Valencia",
    "Leeds",
    "Austin",
    "Denver",
    "Hamburg",
    "Zagreb",
]
COMPANIES = [
    "Northwind",
    "Bluefin Labs",
    "Acme Robotics",
    "Helix Health",
    "Orchard Bank",
    "Lumen Studios",
    "Tidewater Logistics",
    "Copperleaf",
    "Pinecrest Foods",
    "Vantage Air",
    "Quarry Games",
    "Sable Systems",
]
ROLES = [
    "nurse",
    "teacher",
    "data analyst",
    "carpenter",
    "product manager",
    "pharmacist",
    "architect",
    "software engineer",
    "chef",
    "paramedic",
    "translator",
    "accountant",
]
FAVOURITES: dict[str, list[str]] = {
    "colour": ["teal", "crimson", "mustard yellow", "lavender", "forest green", "navy"],
    "food": ["ramen", "paella", "lasagna", "pho", "tacos", "dumplings", "falafel"],
    "movie": ["Amelie", "Spirited Away", "Heat", "Paddington", "Arrival", "Jaws"],
    "book": ["Dune", "Middlemarch", "Beloved", "Emma", "Persuasion", "Rebecca"],
    "band": ["Radiohead", "ABBA", "Daft Punk", "Fleetwood Mac", "Queen", "Blur"],
    "sport": ["badminton", "rugby", "volleyball", "fencing", "cricket", "handball"],
    "drink": ["espresso", "mint tea", "lemonade", "chai", "kombucha", "hot chocolate"],
    "season": ["autumn", "spring", "winter", "summer"],
    "animal": ["otter", "red panda", "owl", "octopus", "fox", "penguin"],
    "board game": ["Catan", "Carcassonne", "chess", "Scrabble", "Azul", "Wingspan"],
    "flower": ["tulips", "peonies", "sunflowers", "orchids", "daisies", "lilies"],
    "fruit": ["mango", "kiwi", "cherries", "figs", "pineapple", "pears"],
}
PETS = ["dog", "cat", "rabbit", "parrot", "hamster", "tortoise"]
PET_NAMES = ["Biscuit", "Pepper", "Mochi", "Luna", "Rusty", "Olive", "Ziggy", "Maple", "Nico"]
HOBBIES = [
    "pottery",
    "rock climbing",
    "knitting",
    "salsa dancing",
    "birdwatching",
    "chess",
    "baking bread",
    "gardening",
    "woodworking",
    "photography",
    "sailing",
    "archery",
]
LANGUAGES = ["Spanish", "Japanese", "German", "Swahili", "Portuguese", "Korean", "Italian"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven"]
ORDINALS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh"]

Seq = dict[str, Any]
_seqs: list[Seq] = []


def _add(
    kind: str,
    texts: list[str],
    question: str,
    current: list[int],
    stale: list[int] | None = None,
    closed: list[int] | None = None,
    open_: list[int] | None = None,
    history: str | None = None,
    gaps: list[int] | None = None,
    topic: str = "",
) -> None:
    day = 0
    steps = []
    for i, text in enumerate(texts):
        steps.append({"text": text, "day": day})
        day += gaps[i] if gaps and i < len(gaps) else 40 + 17 * (i % 3)
    _seqs.append(
        {
            "id": f"{topic or kind}-{len(_seqs):03d}",
            "kind": kind,
            "topic": topic,
            "steps": steps,
            "question": question,
            "current": current,
            "stale": stale if stale is not None else [],
            "closed": closed if closed is not None else [],
            "open": open_ if open_ is not None else [],
            **({"history": history} if history else {}),
        }
    )


def _chain(
    r: random.Random,
    kind: str,
    topic: str,
    first: Callable[[str], str],
    later: list[Callable[[str], str]],
    pool: list[str],
    question: str,
    history: str | None = None,
    lo: int = 2,
    hi: int = 4,
) -> None:
    """A single-valued slot changed ``n - 1`` times: the last statement is current, each
    earlier one stale and to be closed."""
    n = r.randint(lo, hi)
    values = r.sample(pool, n)
    texts = [first(values[0])] + [r.choice(later)(v) for v in values[1:]]
    earlier = list(range(n - 1))
    _add(kind, texts, question, [n - 1], earlier, earlier, [], history, topic=topic)


def names(r: random.Random) -> None:
    firsts: list[Callable[[str], str]] = [
        lambda v: f"My name is {v}.",
        lambda v: f"Hi, I'm {v}.",
        lambda v: f"I'm called {v}.",
        lambda v: f"You can call me {v}.",
    ]
    later: list[Callable[[str], str]] = [
        lambda v: f"Call me {v} from now on.",
        lambda v: f"{v} is what I go by these days.",
        lambda v: f"Please call me {v} instead.",
        lambda v: f"I changed my name to {v}.",
        lambda v: f"My name has changed to {v}.",
        lambda v: f"Actually, my name is {v}.",
        lambda v: f"I go by {v} now.",
        lambda v: f"Everyone calls me {v} now, so please do too.",
        lambda v: f"I'd rather you call me {v}.",
        lambda v: f"My new name is {v}.",
    ]
    questions = ["What is my name?", "What should you call me?", "What name do I go by?"]
    history = ["What are all the names I have given you?", "Which names have I used before?"]
    for _ in range(40):
        _chain(
            r,
            "single",
            "name",
            r.choice(firsts),
            later,
            FIRST,
            r.choice(questions),
            r.choice(history),
            2,
            5,
        )


def _bind(template: Callable[[str, str], str], slot: str) -> Callable[[str], str]:
    return lambda value: template(slot, value)


def favourites(r: random.Random) -> None:
    firsts: list[Callable[[str, str], str]] = [
        lambda s, v: f"My favourite {s} is {v}.",
        lambda s, v: f"{v[0].upper() + v[1:]} is my favorite {s}.",
        lambda s, v: f"I'd say my favourite {s} is {v}.",
    ]
    later: list[Callable[[str, str], str]] = [
        lambda s, v: f"{v[0].upper() + v[1:]} is my favourite {s} now.",
        lambda s, v: f"My favourite {s} has changed to {v}.",
        lambda s, v: f"These days my favorite {s} is {v}.",
        lambda s, v: f"My new favourite {s} is {v}.",
        lambda s, v: f"{v[0].upper() + v[1:]} has become my favourite {s}.",
        lambda s, v: f"Lately {v} is my favourite {s}.",
        lambda s, v: f"I've got a new favourite {s}: {v}.",
        lambda s, v: f"My favourite {s} is now {v}.",
    ]
    for _ in range(60):
        slot = r.choice(sorted(FAVOURITES))
        f, later_s = r.choice(firsts), [_bind(g, slot) for g in later]
        question = r.choice([f"What is my favourite {slot}?", f"Which {slot} do I like best?"])
        _chain(
            r,
            "single",
            "favourite",
            _bind(f, slot),
            later_s,
            FAVOURITES[slot],
            question,
            f"What {slot}s have been my favourite over time?",
            2,
            4,
        )
    for _ in range(12):  # third person
        slot = r.choice(sorted(FAVOURITES))
        who = r.choice(PEOPLE)
        a, b = r.sample(FAVOURITES[slot], 2)
        second = r.choice(
            [
                f"{b[0].upper() + b[1:]} is {who}'s favourite {slot} now.",
                f"{who}'s favourite {slot} has changed to {b}.",
                f"{who} says {b} is now her favourite {slot}.",
            ]
        )
        _add(
            "single",
            [f"{who}'s favourite {slot} is {a}.", second],
            f"What is {who}'s favourite {slot}?",
            [1],
            [0],
            [0],
            topic="favourite3",
        )


def homes(r: random.Random) -> None:
    firsts: list[Callable[[str], str]] = [
        lambda v: f"I live in {v}.",
        lambda v: f"I'm based in {v}.",
        lambda v: f"Home for me is {v}.",
    ]
    later: list[Callable[[str], str]] = [
        lambda v: f"I moved to {v} last month.",
        lambda v: f"I just moved to {v}.",
        lambda v: f"We relocated to {v} in the spring.",
        lambda v: f"I'm living in {v} now.",
        lambda v: f"My new flat is in {v}.",
        lambda v: f"I've settled in {v}.",
        lambda v: f"Home is now {v}.",
    ]
    for _ in range(22):
        _chain(
            r,
            "single",
            "home",
            r.choice(firsts),
            later,
            CITIES,
            r.choice(["Where do I live?", "Which city am I living in?"]),
            "Which cities have I lived in?",
            2,
            4,
        )
    for _ in range(12):  # third person, a chain of moves phrased two ways
        who = r.choice(PEOPLE)
        a, b, c = r.sample(CITIES, 3)
        texts = [
            f"{who} lives in {a}.",
            f"{who} moved from {a} to {b} last month.",
            r.choice(
                [
                    f"{who} just moved to {c}.",
                    f"{who} is living in {c} now.",
                    f"{who} relocated to {c}.",
                ]
            ),
        ]
        _add(
            "single",
            texts,
            f"Where does {who} live?",
            [2],
            [0, 1],
            [0, 1],
            history=f"Which cities has {who} lived in?",
            topic="home3",
        )


def jobs(r: random.Random) -> None:
    firsts: list[Callable[[str], str]] = [
        lambda v: f"I work at {v}.",
        lambda v: f"I'm employed by {v}.",
        lambda v: f"My employer is {v}.",
    ]
    later: list[Callable[[str], str]] = [
        lambda v: f"I started a new job at {v}.",
        lambda v: f"I joined {v} this week.",
        lambda v: f"I now work for {v}.",
        lambda v: f"I switched jobs and I'm at {v} now.",
        lambda v: f"My new employer is {v}.",
        lambda v: f"I got hired by {v}.",
    ]
    for _ in range(20):
        _chain(
            r,
            "single",
            "employer",
            r.choice(firsts),
            later,
            COMPANIES,
            r.choice(["Where do I work?", "Who is my employer?"]),
            "Which companies have I worked for?",
            2,
            3,
        )
    rfirst: list[Callable[[str], str]] = [
        lambda v: f"I work as a {v}.",
        lambda v: f"I'm a {v} by profession.",
        lambda v: f"My job is {v}.",
    ]
    rlater: list[Callable[[str], str]] = [
        lambda v: f"I became a {v}.",
        lambda v: f"I retrained and now work as a {v}.",
        lambda v: f"My job title is now {v}.",
        lambda v: f"I'm working as a {v} these days.",
        lambda v: f"I changed careers; I'm a {v} now.",
    ]
    for _ in range(15):
        _chain(
            r,
            "single",
            "role",
            r.choice(rfirst),
            rlater,
            ROLES,
            r.choice(["What is my job?", "What do I do for a living?"]),
            None,
            2,
            3,
        )


def partners(r: random.Random) -> None:
    for _ in range(8):
        a, b = r.sample(PEOPLE, 2)
        texts = [
            r.choice([f"I'm dating {a}.", f"My girlfriend is {a}.", f"{a} is my partner."]),
            r.choice([f"{a} and I broke up.", f"I broke up with {a}.", f"{a} and I split up."]),
            r.choice([f"I'm seeing {b} now.", f"My new partner is {b}.", f"I started dating {b}."]),
        ]
        _add(
            "ending",
            texts,
            r.choice(["Who is my partner?", "Who am I dating?"]),
            [2],
            [0],
            [0],
            topic="partner",
        )
    for _ in range(7):
        a, b = r.sample(PEOPLE, 2)
        texts = [
            r.choice([f"I'm married to {a}.", f"My husband is {a}."]),
            r.choice([f"My partner is {b} now.", f"I'm engaged to {b}.", f"I married {b}."]),
        ]
        _add("single", texts, "Who is my partner?", [1], [0], [0], topic="partner")


def birthdays(r: random.Random) -> None:
    for _ in range(10):
        m = r.choice(MONTHS)
        d = r.randint(1, 9)
        e = d + 10
        texts = [
            r.choice([f"My birthday is {m} {d}.", f"I was born on {m} {d}."]),
            r.choice(
                [
                    f"Correction: my birthday is actually {m} {e}, not {m} {d}.",
                    f"Sorry, I got it wrong: my birthday is {m} {e}.",
                    f"Actually my birthday is on {m} {e}.",
                ]
            ),
        ]
        _add("correction", texts, "When is my birthday?", [1], [0], [0], topic="birthday")
    for _ in range(6):
        who = r.choice(PEOPLE)
        m1, m2 = r.sample(MONTHS, 2)
        texts = [
            f"{who}'s birthday is on {m1} {r.randint(1, 28)}.",
            f"I was wrong, {who}'s birthday is actually {m2} {r.randint(1, 28)}.",
        ]
        _add("correction", texts, f"When is {who}'s birthday?", [1], [0], [0], topic="birthday3")
    for _ in range(8):
        age = r.randint(21, 70)
        texts = [
            r.choice([f"I am {age} years old.", f"I'm {age}."]),
            r.choice([f"I turned {age + 1} today.", f"I'm {age + 1} now."]),
        ]
        _add("single", texts, "How old am I?", [1], [0], [0], topic="age")


def counts(r: random.Random) -> None:
    nouns = [("kids", "child"), ("children", "child")]
    for _ in range(8):
        n = r.randint(2, 4)
        plural, single = r.choice(nouns)
        texts = [
            f"I have {NUMBER_WORDS[n]} {plural}.",
            r.choice(
                [
                    f"We just had our {ORDINALS[n + 1]} {single}!",
                    f"I now have {NUMBER_WORDS[n + 1]} {plural}.",
                    f"Our {ORDINALS[n + 1]} {single} was born last week.",
                ]
            ),
        ]
        _add("count", texts, f"How many {plural} do I have?", [1], [0], [0], topic="count")
    for _ in range(8):
        who = r.choice(PEOPLE)
        n = r.randint(2, 4)
        texts = [
            f"{who} has {NUMBER_WORDS[n]} children.",
            r.choice(
                [
                    f"{who} had her {ORDINALS[n + 1]} child.",
                    f"{who} just welcomed her {ORDINALS[n + 1]} baby.",
                    f"{who} now has {NUMBER_WORDS[n + 1]} children.",
                ]
            ),
        ]
        _add("count", texts, f"How many children does {who} have?", [1], [0], [0], topic="count3")
    for _ in range(6):
        n = r.randint(2, 5)
        thing = r.choice(["marathons", "half marathons", "triathlons"])
        texts = [
            f"I have run {NUMBER_WORDS[n]} {thing}.",
            f"I just finished my {ORDINALS[n + 1]} {thing[:-1]}.",
        ]
        _add("count", texts, f"How many {thing} have I run?", [1], [0], [0], topic="count")


def switches(r: random.Random) -> None:
    drinks = ["coffee", "black tea", "green tea", "oat milk lattes", "matcha", "yerba mate"]
    for _ in range(8):
        a, b = r.sample(drinks, 2)
        texts = [
            f"I drink {a} every morning.",
            r.choice(
                [
                    f"I switched to {b}; I no longer drink {a}.",
                    f"I don't drink {a} anymore, it's {b} in the mornings now.",
                    f"These days I start the day with {b} instead of {a}.",
                ]
            ),
        ]
        _add("single", texts, "What do I drink in the morning?", [1], [0], [0], topic="switch")
    diets = ["vegetarian", "vegan", "pescatarian", "keto"]
    for _ in range(6):
        a, b = r.sample(diets, 2)
        texts = [
            f"I'm {a}.",
            r.choice(
                [f"I went {b} last spring.", f"I'm {b} now.", f"I switched from being {a} to {b}."]
            ),
        ]
        _add("single", texts, "What diet do I follow?", [1], [0], [0], topic="diet")
    cars = ["Toyota Corolla", "Tesla Model 3", "Volvo XC40", "Honda Civic", "Kia Niro"]
    for _ in range(6):
        a, b = r.sample(cars, 2)
        texts = [
            f"I drive a {a}.",
            r.choice(
                [
                    f"I now drive a {b}.",
                    f"I traded my {a} for a {b}.",
                    f"I sold the {a} and bought a {b}.",
                ]
            ),
        ]
        _add("single", texts, "What car do I drive?", [1], [0], [0], topic="car")
    phones = ["iPhone", "Pixel", "Galaxy", "Fairphone"]
    for _ in range(5):
        a, b = r.sample(phones, 2)
        texts = [
            f"I use an {a} phone." if a[0] in "AEIOUi" else f"I use a {a} phone.",
            f"I switched to a {b} phone.",
        ]
        _add("single", texts, "What phone do I use?", [1], [0], [0], topic="switch")
    commutes = ["by bike", "by train", "by bus", "on foot", "by car"]
    for _ in range(5):
        a, b = r.sample(commutes, 2)
        texts = [f"I get to work {a}.", f"I've changed my commute: I go to work {b} now."]
        _add("single", texts, "How do I get to work?", [1], [0], [0], topic="switch")


def endings(r: random.Random) -> None:
    for _ in range(10):
        pet = r.choice(PETS)
        a, b = r.sample(PET_NAMES, 2)
        texts = [
            r.choice([f"I have a {pet} named {a}.", f"My {pet} is called {a}."]),
            r.choice(
                [f"{a} passed away last week.", f"My {pet} {a} died.", f"We had to put {a} down."]
            ),
            r.choice(
                [
                    f"We adopted a new {pet} called {b}.",
                    f"I got a new {pet}, {b}.",
                    f"Meet {b}, our new {pet}.",
                ]
            ),
        ]
        _add(
            "ending",
            texts,
            r.choice([f"What is my {pet}'s name?", f"What is my {pet} called?"]),
            [2],
            [0],
            [0],
            topic="pet",
        )
    for _ in range(8):
        a, b = r.sample(COMPANIES, 2)
        texts = [
            f"I work at {a}.",
            r.choice([f"I quit my job at {a}.", f"I was laid off from {a}.", f"I left {a}."]),
            r.choice([f"I started at {b} on Monday.", f"I've just joined {b}."]),
        ]
        _add("ending", texts, "Where do I work?", [2], [0], [0], topic="employer")
    for _ in range(6):
        a, b = r.sample(HOBBIES, 2)
        texts = [
            f"I go to {a} classes every week.",
            f"I stopped going to {a} classes.",
            f"Now I spend my weekends on {b}.",
        ]
        _add("ending", texts, "What do I do for fun these days?", [2], [0], [0], topic="hobby")


def multi(r: random.Random) -> None:
    for _ in range(12):
        p1, p2 = r.sample(PETS, 2)
        a, b = r.sample(PET_NAMES, 2)
        texts = [
            r.choice([f"I have a {p1} named {a}.", f"My {p1} is called {a}."]),
            r.choice(
                [
                    f"We also adopted a {p2} called {b}.",
                    f"I got a {p2} named {b}.",
                    f"Our family grew: a {p2} named {b} joined us.",
                ]
            ),
        ]
        _add("multi", texts, "What pets do I have?", [0, 1], open_=[0, 1], topic="pets")
    for _ in range(12):
        hs = r.sample(HOBBIES, 3)
        texts = [
            f"I enjoy {hs[0]}.",
            r.choice(
                [
                    f"I've taken up {hs[1]}.",
                    f"I started {hs[1]} this year.",
                    f"I'm into {hs[1]} as well.",
                ]
            ),
            r.choice([f"I also love {hs[2]}.", f"My newest hobby is {hs[2]}."]),
        ]
        _add("multi", texts, "What are my hobbies?", [0, 1, 2], open_=[0, 1, 2], topic="hobbies")
    for _ in range(10):
        ls = r.sample(LANGUAGES, 3)
        texts = [
            f"I speak {ls[0]}.",
            r.choice([f"I'm learning {ls[1]}.", f"I can also speak {ls[1]}."]),
            r.choice([f"I picked up some {ls[2]} too.", f"I speak {ls[2]} fluently."]),
        ]
        _add(
            "multi",
            texts,
            "Which languages do I speak?",
            [0, 1, 2],
            open_=[0, 1, 2],
            topic="languages",
        )
    for _ in range(10):
        f1, f2 = r.sample(PEOPLE, 2)
        r1, r2 = r.sample(ROLES, 2)
        texts = [f"My friend {f1} is a {r1}.", f"My friend {f2} is a {r2}."]
        _add("multi", texts, "Who are my friends?", [0, 1], open_=[0, 1], topic="friends")
    for _ in range(6):
        c1, c2 = r.sample(CITIES, 2)
        texts = [f"I visited {c1} in May.", f"I visited {c2} in August."]
        _add("multi", texts, "Which cities have I visited?", [0, 1], open_=[0, 1], topic="trips")


def third(r: random.Random) -> None:
    rels = ["sister", "brother", "mother", "husband", "wife", "cousin", "neighbour"]
    for _ in range(10):
        a, b = r.sample(CITIES, 2)
        rel = r.choice(rels)
        texts = [
            f"I live in {a}.",
            r.choice([f"My {rel} lives in {b}.", f"My {rel} just moved to {b}."]),
        ]
        _add("third", texts, "Where do I live?", [0], [], [], [0, 1], topic="home")
    for _ in range(8):
        a, b = r.sample(COMPANIES, 2)
        who = r.choice(PEOPLE)
        texts = [f"I work at {a}.", r.choice([f"{who} works at {b}.", f"{who} joined {b}."])]
        _add("third", texts, "Where do I work?", [0], [], [], [0, 1], topic="employer")
    for _ in range(8):
        slot = r.choice(sorted(FAVOURITES))
        a, b = r.sample(FAVOURITES[slot], 2)
        who = r.choice(PEOPLE)
        texts = [f"My favourite {slot} is {a}.", f"{who}'s favourite {slot} is {b}."]
        _add(
            "third", texts, f"What is my favourite {slot}?", [0], [], [], [0, 1], topic="favourite"
        )
    for _ in range(6):
        a, b = r.sample(FIRST, 2)
        rel = r.choice(rels)
        texts = [f"My name is {a}.", f"My {rel}'s name is {b}."]
        _add("third", texts, "What is my name?", [0], [], [], [0, 1], topic="name")
    for _ in range(10):  # an ending closes its own slot, not another with the same value
        who = r.choice(PEOPLE)
        c = r.choice(CITIES)
        texts = [
            f"{who} lives in {c}.",
            r.choice([f"{who}'s office is in {c}.", f"{who} works in an office in {c}."]),
            r.choice([f"{who} no longer lives in {c}.", f"{who} moved out of {c}."]),
        ]
        _add("third", texts, f"Where is {who}'s office?", [1], [], [0], [1], topic="slot")


def build(seed: int = 47) -> list[Seq]:
    _seqs.clear()
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
    return list(_seqs)


def main() -> int:
    seqs = build()
    PATH.write_text("".join(json.dumps(s) + "\n" for s in seqs), encoding="utf-8")
    print(f"{len(seqs)} sequences -> {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
