"""The sixth development split of issue 47 (``hmem_bench.updates_data6``): the file is what
the seeded generator writes, ``updates.load`` reads every sequence, and every sequence is
well formed (indices in range, the sets consistent, ids unique, days increasing, the kinds
in their planned numbers, counts that grow, statements a person would type)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Any

import pytest

from hmem_bench.updates import load
from hmem_bench.updates_data6 import (
    ORDINALS,
    PATH,
    PHRASES,
    PLAN,
    REGISTERS,
    SEED,
    STATEMENT_KEYS,
    WORDS,
    build,
    dump,
    fill,
    read_phrases,
    words,
)
from hmem_bench.updates_schema import SINGLE_VALUED, problems

FIELDS = {"id", "kind", "topic", "steps", "question", "current", "stale", "closed", "open"}


@pytest.fixture(scope="module")
def seqs() -> list[dict[str, Any]]:
    return load(PATH)


def test_the_file_is_what_the_generator_writes() -> None:
    assert PATH.read_text(encoding="utf-8") == dump(build())
    assert SEED == 6173
    assert dump(build(seed=SEED + 1)) != dump(build())


def test_the_loader_reads_every_sequence(seqs: list[dict[str, Any]]) -> None:
    assert seqs == build()
    assert len(seqs) == sum(PLAN.values()) >= 320
    for seq in seqs:
        assert set(seq) == FIELDS | {"history"}
        assert seq["question"]
        assert seq["history"]
        assert seq["history"] != seq["question"]
        assert all(set(step) == {"text", "day"} and step["text"] for step in seq["steps"])


def test_kinds_in_their_planned_numbers(seqs: list[dict[str, Any]]) -> None:
    kinds = Counter(seq["kind"] for seq in seqs)
    assert kinds == Counter(PLAN)
    assert set(kinds) == set(STATEMENT_KEYS)
    topics = Counter((seq["kind"], seq["topic"]) for seq in seqs)
    for kind in PLAN:
        per_topic = [n for (k, _), n in topics.items() if k == kind]
        assert len(per_topic) >= 6, kind
        assert max(per_topic) - min(per_topic) <= 1, kind
    assert len({t for k, t in topics if k == "single"}) >= 36
    assert len({t for _, t in topics}) >= 55


def test_the_split_keeps_the_schema_and_its_own_rules(seqs: list[dict[str, Any]]) -> None:
    assert problems(seqs) == []
    for seq in seqs:
        assert len(seq["steps"]) - 1 not in seq["closed"], seq["id"]  # nothing comes after
        if seq["kind"] in SINGLE_VALUED:
            assert seq["stale"], seq["id"]  # the asked owner always has an earlier value


def test_chains_have_two_to_five_values(seqs: list[dict[str, Any]]) -> None:
    for seq in seqs:
        values = len(seq["current"]) + len(seq["stale"])
        assert 2 <= values <= 5, seq["id"]
    interludes = [seq for seq in seqs if seq["kind"] == "single" and seq["open"]]
    assert 0.15 < len(interludes) / PLAN["single"] < 0.45
    asides = set(read_phrases()["generic"]["aside"])
    for seq in interludes:
        # the unrelated statement sits between two values, never first or last
        assert all(0 < i < len(seq["steps"]) - 1 for i in seq["open"]), seq["id"]
        assert {seq["steps"][i]["text"] for i in seq["open"]} <= asides, seq["id"]
        assert set(range(len(seq["steps"]))) == set(seq["open"]) | set(seq["stale"]) | set(
            seq["current"]
        )


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
    for token in re.findall(r"[\w]+", text.lower()):
        if token.isdigit():
            return int(token)
        if token in WORDS[1:]:
            return WORDS.index(token)
        if token in ORDINALS[1:]:
            return ORDINALS.index(token)
    raise AssertionError(f"no count in {text!r}")


def test_counts_grow_and_ordinals_agree(seqs: list[dict[str, Any]]) -> None:
    for seq in (s for s in seqs if s["kind"] == "count"):
        numbers = [_number(step["text"]) for step in seq["steps"]]
        assert all(a < b for a, b in pairwise(numbers)), seq["id"]
        for (before, n), step in zip(pairwise(numbers), seq["steps"][1:], strict=True):
            if any(o in step["text"] for o in ORDINALS[2:]):
                assert n == before + 1, seq["id"]  # "our third child" after two


def test_a_correction_names_the_slip_and_the_value(seqs: list[dict[str, Any]]) -> None:
    blocks = [b for key, b in read_phrases().items() if key.startswith("correction ")]
    pairs = [p.split(" ~ ") for block in blocks for p in block["v"]]
    assert all(len(p) == 2 and p[0] != p[1] for p in pairs)
    for seq in (s for s in seqs if s["kind"] == "correction"):
        first, fix = (step["text"] for step in seq["steps"])
        # the slip first, then the value, from one pair
        assert any(p[i] in first and p[1 - i] in fix for p in pairs for i in (0, 1)), seq["id"]


def test_a_third_party_change_closes_only_that_party(seqs: list[dict[str, Any]]) -> None:
    thirds = [seq for seq in seqs if seq["kind"] == "third"]
    parties = read_phrases()["parties"]["p"]

    def party(text: str) -> str | None:
        """The relation a statement is about ("my twin brother"), the longest named."""
        low = text.lower()
        named = [p for p in parties if any(f"{w} {p.lower()}" in low for w in ("my", "user's"))]
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
    assert max(words(t) for t in texts) <= 25
    # terse notes, sentences and chatty messages; "the user" reports; second-hand ones
    assert sum(t[:1].islower() for t in texts) > len(texts) / 4
    assert sum(":" in t[:24] or "→" in t for t in texts) > len(texts) / 5
    assert sum(t.lower().startswith("the user") for t in texts) > 20
    assert sum(" says " in t for t in texts) >= 5
    questions = Counter(seq["question"] for seq in seqs)
    assert len(questions) > 150
    assert sum(q.lower().startswith(("remind me", "do you remember")) for q in questions) > 30
    with pytest.raises(ValueError, match="unfilled placeholder"):
        fill("my {slot} is {v}", v="x")
    assert fill("{V} is where I live", v="graz") == "Graz is where I live"


def test_the_phrase_file_has_every_key_its_kind_needs() -> None:
    need = {
        "single": {"v", "first", "change", "q", "h"},
        "multi": {"v", "first", "add", "q", "h"},
        "third": {"v", "own", "ownchange", "pfirst", "pchange"}
        | {"q_party", "q_own", "h_party", "h_own"},
        "ending": {"v", "first", "end", "new", "q", "h"},
        "count": {"unit", "range", "first", "change", "q", "h"},
        "correction": {"v", "first", "fix", "q", "h"},
    }
    phrases = read_phrases()
    generic = phrases["generic"]
    assert len(PHRASES.read_text(encoding="utf-8").splitlines()) <= 500
    assert len(phrases["parties"]["p"]) >= 30
    assert len(generic["aside"]) >= 8
    for key, block in phrases.items():
        kind = key.split(" ", 1)[0]
        if kind in ("generic", "parties"):
            continue
        keys = {k.split(".")[0] for k in block}
        assert need[kind] <= keys, key
        if "v" in block:
            assert len(set(block["v"])) == len(block["v"]) >= 6, key
        for name in STATEMENT_KEYS[kind]:
            if kind == "ending" and name == "change" and f"{name}.s" not in block:
                continue  # an ending with no plain change (a dog is not swapped)
            for register in REGISTERS:
                pool = block.get(f"{name}.{register}", [])
                if name == "change" and "slot" in block:
                    pool = pool + generic[f"change.{register}"]
                assert pool, (key, name, register)
