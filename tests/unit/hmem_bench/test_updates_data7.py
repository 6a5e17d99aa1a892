"""The seventh development split of issue 47 (``hmem_bench.updates_data7``): the file is what
the seeded generator writes, ``updates.load`` reads every sequence, every sequence keeps the
shared schema (``updates_schema.problems``) and this split's own rules (about half of it a
user's name and favourite things, chains of 3 to 5 values, the kinds in their planned
numbers, counts that grow, corrections from one pair, third parties kept apart, statements
a person would type to an assistant)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Any

import pytest

from hmem_bench.updates import load
from hmem_bench.updates_data7 import (
    MAX_WORDS,
    ORDINALS,
    PATH,
    PHRASES,
    PLAN,
    SEED,
    WORDS,
    build,
    dump,
    fill,
    read_phrases,
    words,
)
from hmem_bench.updates_data7 import topics as rotation_of
from hmem_bench.updates_schema import SINGLE_VALUED, problems

FIELDS = {"id", "kind", "topic", "steps", "question", "history"}
FIELDS |= {"current", "stale", "closed", "open"}
NAMES = {"name", "nickname", "username", "displayname", "surname"}


@pytest.fixture(scope="module")
def seqs() -> list[dict[str, Any]]:
    return load(PATH)


@pytest.fixture(scope="module")
def phrases() -> dict[str, dict[str, list[str]]]:
    return read_phrases()


def _named(text: str, values: list[str]) -> list[str]:
    """The values ``text`` names, in order, the longest first where two overlap."""
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    found = re.finditer(rf"(?<!\w)(?:{alternatives})(?!\w)", text, re.IGNORECASE)
    return [m.group(0).lower() for m in found]


def plain_single(topics: Counter[tuple[str, str]]) -> list[int]:
    return [n for (k, t), n in topics.items() if k == "single" and t not in NAMES]


def test_the_file_is_what_the_generator_writes() -> None:
    assert PATH.read_text(encoding="utf-8") == dump(build())
    assert SEED == 7419
    assert dump(build(seed=SEED + 1)) != dump(build())


def test_the_loader_reads_every_sequence(seqs: list[dict[str, Any]]) -> None:
    assert seqs == build()
    assert len(seqs) == sum(PLAN.values()) >= 320
    for seq in seqs:
        assert set(seq) == FIELDS, seq["id"]
        assert seq["question"] and seq["history"] and seq["history"] != seq["question"]
        assert all(set(step) == {"text", "day"} and step["text"] for step in seq["steps"])


def test_kinds_in_their_planned_numbers(seqs: list[dict[str, Any]]) -> None:
    kinds = Counter(seq["kind"] for seq in seqs)
    assert kinds == Counter(PLAN)
    assert set(kinds) == {"single", "multi", "third", "ending", "count", "correction"}
    topics = Counter((seq["kind"], seq["topic"]) for seq in seqs)
    phrases = read_phrases()
    for kind, total in PLAN.items():
        rotation = rotation_of(phrases, kind)
        planned = Counter(rotation[i % len(rotation)] for i in range(total))
        assert {t: n for (k, t), n in topics.items() if k == kind} == planned, kind
        plain = [planned[t] for t in set(rotation) if rotation.count(t) == 1]
        assert len(set(rotation)) >= 6, kind
        assert max(plain) - min(plain) <= 1, kind
    assert topics["single", "name"] >= 3 * max(plain_single(topics)), "the name most"
    singles = {t for k, t in topics if k == "single"}
    assert len(singles) >= 30
    assert singles >= NAMES
    assert len(singles - NAMES) >= 25  # favourite things


def test_about_half_is_names_and_favourites(
    seqs: list[dict[str, Any]], phrases: dict[str, dict[str, list[str]]]
) -> None:
    def personal(seq: dict[str, Any]) -> bool:
        block = phrases[f"{seq['kind']} {seq['topic']}"]
        return seq["kind"] in ("single", "third") or "slot" in block or seq["topic"] in NAMES

    share = sum(personal(seq) for seq in seqs) / len(seqs)
    assert 0.45 <= share <= 0.75
    assert sum(seq["kind"] == "single" for seq in seqs) / len(seqs) >= 0.45


def test_the_split_keeps_the_schema_and_its_own_rules(seqs: list[dict[str, Any]]) -> None:
    assert problems(seqs) == []
    for seq in seqs:
        assert len(seq["steps"]) - 1 not in seq["closed"], seq["id"]  # nothing comes after
        if seq["kind"] in SINGLE_VALUED:
            assert seq["stale"], seq["id"]  # the asked owner always has an earlier value


def test_chains_of_names_and_favourites_have_three_to_five_values(
    seqs: list[dict[str, Any]], phrases: dict[str, dict[str, list[str]]]
) -> None:
    asides = set(phrases["generic"]["aside"])
    for seq in seqs:
        values = len(seq["current"]) + len(seq["stale"])
        assert (3 if seq["kind"] == "single" else 2) <= values <= 5, seq["id"]
    singles = [seq for seq in seqs if seq["kind"] == "single"]
    assert sum(len(s["current"]) + len(s["stale"]) == 5 for s in singles) > len(singles) / 5
    interludes = [seq for seq in singles if seq["open"]]
    assert 0.1 < len(interludes) / len(singles) < 0.35
    for seq in interludes:
        # the unrelated statement sits between two values, never first or last
        assert all(0 < i < len(seq["steps"]) - 1 for i in seq["open"]), seq["id"]
        assert {seq["steps"][i]["text"] for i in seq["open"]} <= asides, seq["id"]
    for seq in singles:
        block = phrases[f"single {seq['topic']}"]
        chain = [seq["steps"][i]["text"] for i in seq["stale"] + seq["current"]]
        named: list[str] = []
        for text in chain:
            fresh = [v for v in _named(text, block["v"]) if v not in named]
            assert len(fresh) == 1, (seq["id"], text)  # each value step names a new value
            named += fresh
        assert len(set(named)) == len(chain), seq["id"]


def test_an_ending_is_in_neither_closed_nor_open(seqs: list[dict[str, Any]]) -> None:
    for seq in (s for s in seqs if s["kind"] == "ending"):
        every = set(range(len(seq["steps"])))
        named = set(seq["current"]) | set(seq["closed"]) | set(seq["open"])
        assert len(every - named) == 1, seq["id"]  # the ending statement
        assert set(seq["closed"]) == set(seq["stale"]), seq["id"]
        (end,) = every - named
        assert max(seq["stale"]) < end < min(seq["current"]), seq["id"]
        assert seq["current"] == [len(seq["steps"]) - 1], seq["id"]


def _number(text: str) -> int:
    """The count a statement gives: digits, a number word or an ordinal."""
    for token in re.findall(r"\w+", text.lower()):
        if token.isdigit():
            return int(token)
        if token in WORDS[1:]:
            return WORDS.index(token)
        if token in ORDINALS[1:]:
            return ORDINALS.index(token)
    raise AssertionError(f"no count in {text!r}")


def test_counts_grow_and_ordinals_agree(seqs: list[dict[str, Any]]) -> None:
    ordinals = 0
    for seq in (s for s in seqs if s["kind"] == "count"):
        numbers = [_number(step["text"]) for step in seq["steps"]]
        assert all(a < b for a, b in pairwise(numbers)), seq["id"]
        for (before, n), step in zip(pairwise(numbers), seq["steps"][1:], strict=True):
            if any(re.search(rf"\b{o}\b", step["text"]) for o in ORDINALS[2:]):
                ordinals += 1
                assert n == before + 1, seq["id"]  # "our third child" after two
    assert ordinals >= 10


def test_a_correction_names_the_slip_and_the_value(
    seqs: list[dict[str, Any]], phrases: dict[str, dict[str, list[str]]]
) -> None:
    for seq in (s for s in seqs if s["kind"] == "correction"):
        pairs = [p.split(" ~ ") for p in phrases[f"correction {seq['topic']}"]["v"]]
        assert all(len(p) == 2 and p[0] != p[1] for p in pairs)
        slipped, fix = (step["text"] for step in seq["steps"][-2:])
        # the slip in the statement before, the value in the fix, from one pair
        assert any(
            _named(slipped, [p[i]]) and _named(fix, [p[1 - i]]) for p in pairs for i in (0, 1)
        ), seq["id"]
        assert seq["steps"][-1]["day"] - seq["steps"][-2]["day"] <= 2, seq["id"]
    three = [s for s in seqs if s["kind"] == "correction" and len(s["steps"]) == 3]
    assert 0.2 < len(three) / PLAN["correction"] < 0.6


def test_a_third_party_change_closes_only_that_party(
    seqs: list[dict[str, Any]], phrases: dict[str, dict[str, list[str]]]
) -> None:
    thirds = [seq for seq in seqs if seq["kind"] == "third"]
    parties = phrases["parties"]["p"]

    def party(text: str) -> str | None:
        """The relation a statement is about ("my twin brother"), the longest named."""
        low = text.lower()
        named = [p for p in parties if re.search(rf"\bmy {re.escape(p)}\b", low)]
        return max(named, key=len) if named else None

    asked_own = 0
    for seq in thirds:
        last = len(seq["steps"]) - 1
        kept = set(range(len(seq["steps"]))) - set(seq["closed"])
        assert len(kept) == 2, seq["id"]
        assert set(seq["open"]) == kept - ({last} & set(seq["current"])), seq["id"]
        whose = [party(step["text"]) for step in seq["steps"]]
        (relation,) = {w for w in whose if w is not None}
        asked = seq["current"] + seq["stale"]
        own = party(seq["question"]) is None
        asked_own += own
        assert party(seq["question"]) == party(seq["history"]), seq["id"]
        assert own or party(seq["question"]) == relation, seq["id"]
        for i, who in enumerate(whose):
            assert (i in asked) == ((who is None) == own), (seq["id"], i)
    assert 0 < asked_own < len(thirds) / 2
    assert len({party(seq["question"]) for seq in thirds}) >= 15


def test_every_statement_is_one_a_person_would_type(seqs: list[dict[str, Any]]) -> None:
    texts = [step["text"] for seq in seqs for step in seq["steps"]]
    asked = [seq[key] for seq in seqs for key in ("question", "history")]
    assert not [t for t in texts + asked if "{" in t or "}" in t]
    assert all(t == t.strip() and t for t in texts + asked)
    assert max(words(t) for t in texts) <= MAX_WORDS == 30
    assert sum(t[:1].islower() for t in texts) > len(texts) / 10  # typed casually
    assert sum(not t.endswith((".", "!", "?")) for t in texts) > len(texts) / 8
    notes = sum(bool(re.match(r"^[\w ]{3,30}: ", t)) for t in texts)
    assert notes < len(texts) / 10  # terse notes are the rare register here
    two = [t for t in texts if re.search(r"[.?!] [A-Z]", t.rstrip(".!?"))]
    assert len(two) > 40  # two sentences, the update in the second
    with pytest.raises(ValueError, match="unfilled placeholder"):
        fill("my {slot} is {v}", v="x")
    assert fill("{V} is my favourite colour now", v="teal") == "Teal is my favourite colour now"


def test_values_come_in_many_orders_and_words(
    seqs: list[dict[str, Any]], phrases: dict[str, dict[str, list[str]]]
) -> None:
    singles = [seq for seq in seqs if seq["kind"] == "single"]
    steps = [
        (seq, seq["steps"][i]["text"]) for seq in singles for i in seq["stale"] + seq["current"]
    ]

    def first_value(seq: dict[str, Any], text: str) -> bool:
        values = phrases[f"single {seq['topic']}"]["v"]
        return any(text.lower().startswith(v.lower()) for v in values)

    assert sum(first_value(seq, t) for seq, t in steps) > len(steps) / 10  # value before slot
    low = [t.lower() for _, t in steps]
    for cue in ("go by", "call me", "know me as", "has changed to", "these days", "overtaken"):
        assert sum(cue in t for t in low) >= 5, cue
    for cue in ("come round to", "had to pick one", "can't get enough of", "what friends call"):
        assert sum(cue in t for t in low) >= 2, cue
    described = [
        d.split(" = ", 1)[1]
        for key, b in phrases.items()
        for d in b.get("d", [])
        if "single" in key
    ]
    assert sum(any(d in t for d in described) for _, t in steps) >= 15
    questions = Counter(seq["question"] for seq in seqs)
    assert len(questions) > 150
    names = [seq for seq in singles if seq["topic"] == "name"]
    assert any(seq["history"] == "What were all the names I gave you?" for seq in names)


def test_the_phrase_file_has_every_key_its_kind_needs(
    phrases: dict[str, dict[str, list[str]]],
) -> None:
    need = {
        "single": {"v", "q"},
        "multi": {"v", "first", "add", "q", "h"},
        "third": {"v", "own", "ownchange", "pfirst", "pchange"}
        | {"q_own", "q_party", "h_own", "h_party"},
        "ending": {"v", "first", "end", "new", "q", "h"},
        "count": {"unit", "range", "step", "first", "change", "q", "h"},
        "correction": {"v", "q"},
    }
    generic = phrases["generic"]
    assert len(phrases["parties"]["p"]) >= 20
    assert len(generic["aside"]) >= 8
    assert len(generic["change"]) >= 25
    assert PHRASES.exists()
    for key, block in phrases.items():
        kind = key.split(" ", 1)[0]
        if kind in ("generic", "parties"):
            continue
        assert need[kind] <= set(block), key
        if kind in ("single", "correction"):
            # a favourite's noun (the generic pools serve it), or its own statements
            assert "slot" in block or {"first", "h"} <= set(block), key
            if kind == "single" and "slot" not in block:
                assert "change" in block, key
        if "v" in block:
            assert len(set(block["v"])) == len(block["v"]) >= 4, key
