"""The ninth development split of issue 47 (``hmem_bench.updates_data9``): the file is what
the seeded generator writes (``--check`` says so too), ``updates.load`` reads every
sequence, every sequence keeps the shared schema (``updates_schema.problems``) and this
split's own rules (the kinds and the singles' two groups in their planned numbers, every
value named in its step, ids unique, days increasing, counts that grow, corrections that
name the value, the other person kept apart, asides left open)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from hmem_bench import updates_data9
from hmem_bench.updates import load
from hmem_bench.updates_data9 import (
    GROUPS,
    ORDINALS,
    PATH,
    PLAN,
    SEED,
    WORDS,
    build,
    build_full,
    dump,
    ordinal,
    read_phrases,
)
from hmem_bench.updates_schema import SINGLE_VALUED, problems

Full = list[tuple[dict[str, Any], dict[str, Any]]]


@pytest.fixture(scope="module")
def seqs() -> list[dict[str, Any]]:
    return load(PATH)


@pytest.fixture(scope="module")
def full() -> Full:
    return build_full()


def _names(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE) is not None


def test_the_file_is_what_the_generator_writes(seqs: list[dict[str, Any]], tmp_path: Path) -> None:
    assert PATH.read_text(encoding="utf-8") == dump(build())
    assert seqs == build()
    assert SEED == 9241
    assert dump(build(seed=SEED + 1)) != dump(build())
    assert updates_data9.main(["--check"]) == 0
    stale = tmp_path / "updates_dev9.jsonl"
    stale.write_text(PATH.read_text(encoding="utf-8").replace("Bristol", "Bristow"), "utf-8")
    assert updates_data9.main(["--check", "--data", str(stale)]) == 1
    assert updates_data9.main(["--data", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == PATH.read_text(encoding="utf-8")


def test_schema_ids_and_days(seqs: list[dict[str, Any]]) -> None:
    assert problems(seqs) == []
    assert len({seq["id"] for seq in seqs}) == len(seqs) == 300
    for seq in seqs:
        days = [step["day"] for step in seq["steps"]]
        assert days[0] == 0 and all(a < b for a, b in pairwise(days)), seq["id"]
        assert seq["question"] and seq["history"] and seq["question"] != seq["history"]
        if seq["kind"] in SINGLE_VALUED:
            assert seq["stale"] and len(seq["steps"]) - 1 not in seq["closed"], seq["id"]


def test_kinds_and_groups_in_their_planned_numbers(full: Full) -> None:
    assert Counter(seq["kind"] for seq, _ in full) == Counter(PLAN)
    assert PLAN == {
        "single": 140,
        "multi": 30,
        "third": 30,
        "ending": 30,
        "count": 30,
        "correction": 40,
    }
    phrases = read_phrases()
    groups = Counter(
        phrases[f"single {seq['topic']}"]["group"][0] for seq, _ in full if seq["kind"] == "single"
    )
    assert groups == GROUPS == {"personal": 70, "life": 70}
    for seq, _ in full:
        if seq["kind"] == "single":
            n = len(seq["current"]) + len(seq["stale"])
            low, top = (
                (3, 5) if phrases[f"single {seq['topic']}"]["group"][0] == "personal" else (2, 4)
            )
            assert low <= n <= top, seq["id"]


def test_every_value_is_named_in_its_step(full: Full) -> None:
    for seq, meta in full:
        values: dict[int, str] = meta["values"]
        steps = [step["text"] for step in seq["steps"]]
        assert set(seq["current"]) | set(seq["stale"]) <= set(values), seq["id"]
        chain = list(values.values())
        assert len(set(chain)) == len(chain), seq["id"]
        for i, value in values.items():
            text = steps[i]
            if seq["kind"] == "count":
                n = int(value)
                forms = [value, WORDS[n], ORDINALS[n], ordinal(n)]
                assert any(_names(text, f) for f in forms), (seq["id"], text)
                continue
            assert _names(text, value), (seq["id"], text)
            for other in chain:  # no value hides inside another
                assert other == value or not _names(other, value), (seq["id"], value)
            if seq["kind"] != "ending":  # a step names no value that comes after it
                later = {values[j] for j in values if j > i}
                assert not any(_names(text, v) for v in later), (seq["id"], text)


def test_asides_sit_between_values_and_stay_open(full: Full) -> None:
    asides = set(read_phrases()["generic"]["aside"])
    holding: Counter[str] = Counter()
    for seq, meta in full:
        at = [i for i, r in meta["roles"].items() if r == "aside"]
        if at:
            holding[seq["kind"]] += 1
        assert set(at) <= set(seq["open"]), seq["id"]
        assert all(0 < i < len(seq["steps"]) - 1 for i in at), seq["id"]
        assert all(seq["steps"][i]["text"] in asides for i in at), seq["id"]
    assert 12 <= holding["single"] <= 40
    assert holding["ending"] >= 8 and holding["correction"] >= 8


def test_the_other_person_is_kept_apart(full: Full) -> None:
    asked: Counter[str] = Counter()
    for seq, meta in full:
        if seq["kind"] != "third":
            continue
        party, whose = meta["party"], meta["asked"]
        asked[whose] += 1
        mentions = [f"my {party.lower()}" in step["text"].lower() for step in seq["steps"]]
        for i, role in meta["roles"].items():
            assert mentions[i] == (role == "party"), (seq["id"], i)
            assert (i in seq["current"] + seq["stale"]) == (role == whose), (seq["id"], i)
        assert (f"my {party.lower()}" in seq["question"].lower()) == (whose == "party")
        kept = set(range(len(seq["steps"]))) - set(seq["closed"])
        assert len(kept) == 2, seq["id"]
    assert asked == {"own": 15, "party": 15}


def test_counts_grow_and_ordinals_add_one(full: Full) -> None:
    for seq, meta in full:
        if seq["kind"] != "count":
            continue
        numbers = [int(meta["values"][i]) for i in range(len(seq["steps"]))]
        assert all(a < b for a, b in pairwise(numbers)), seq["id"]
        for i, role in meta["roles"].items():
            if role == "ord":
                assert i > 0 and numbers[i] == numbers[i - 1] + 1, seq["id"]


def test_corrections_and_endings(full: Full) -> None:
    shapes: Counter[str] = Counter()
    for seq, meta in full:
        roles = meta["roles"]
        if seq["kind"] == "ending":
            ends = {i for i, r in roles.items() if r == "end"}
            named = set(seq["current"]) | set(seq["closed"]) | set(seq["open"])
            assert set(range(len(seq["steps"]))) - named == ends, seq["id"]
        if seq["kind"] != "correction":
            continue
        fix = len(seq["steps"]) - 1
        (slip,) = [i for i, r in roles.items() if r == "slip"]
        assert seq["current"] == [fix] and roles[fix] == "fix", seq["id"]
        gap = seq["steps"][fix]["day"] - seq["steps"][slip]["day"]
        if slip == fix - 1:
            shapes["next day" if gap == 1 else "days later"] += 1
        else:
            shapes["aside between"] += 1
        if "earlier" in roles.values():
            shapes["after a genuine change"] += 1
    assert min(shapes.values()) >= 5 and len(shapes) == 4, shapes


def test_statements_are_typed_text() -> None:
    texts = [s["text"] for seq in build() for s in seq["steps"]]
    assert not [t for t in texts if "{" in t or "}" in t or "  " in t or t != t.strip()]
    assert sum(t[:1].islower() for t in texts) > len(texts) / 12
    assert sum(len(t.split()) >= 15 for t in texts) >= 20
    low = " ".join(texts).lower()
    for cue in ("no longer", "anymore", "switched", "these days", "new bank:"):
        assert cue in low, cue
