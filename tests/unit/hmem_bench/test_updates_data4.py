"""The fourth development split of issue 47 (``hmem_bench.updates_data4``): the file is
what the seeded generator writes, ``updates.load`` reads every sequence, and every
sequence is well formed (indices in range, the index sets as the schema says, ids unique,
days increasing, the kinds in their planned numbers, every phrase filled in)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from hmem_bench.updates import load
from hmem_bench.updates_data4 import PATH, PLAN, SEED, build, dump, main, read_phrases
from hmem_bench.updates_schema import SINGLE_VALUED, problems

FIELDS = {"id", "kind", "topic", "steps", "question", "current", "stale", "closed", "open"}


@pytest.fixture(scope="module")
def seqs() -> list[dict[str, Any]]:
    return load(PATH)


def test_the_file_is_what_the_generator_writes() -> None:
    assert PATH.read_text(encoding="utf-8") == dump(build())
    assert SEED != 4703
    assert main(["--check"]) == 0


def test_another_seed_writes_another_file() -> None:
    assert dump(build(SEED + 1)) != dump(build())


def test_the_loader_reads_every_sequence(seqs: list[dict[str, Any]]) -> None:
    assert seqs == build()
    assert len(seqs) >= 300
    for seq in seqs:
        assert set(seq) == FIELDS | {"history"}
        assert seq["question"].endswith("?")
        assert seq["history"].endswith("?")
        assert all(set(step) == {"text", "day"} and step["text"] for step in seq["steps"])


def test_kinds_in_their_planned_numbers(seqs: list[dict[str, Any]]) -> None:
    kinds = Counter(seq["kind"] for seq in seqs)
    assert kinds == Counter(PLAN)
    assert round(kinds["single"] / len(seqs), 2) == 0.55
    topics = Counter((seq["kind"], seq["topic"]) for seq in seqs)
    for kind in PLAN:
        per_topic = [n for (k, _), n in topics.items() if k == kind]
        assert len(per_topic) >= 6, kind
        assert max(per_topic) - min(per_topic) <= 1, kind
    assert len({seq["topic"] for seq in seqs if seq["kind"] == "single"}) >= 35


def test_the_split_keeps_the_schema_and_its_own_rules(seqs: list[dict[str, Any]]) -> None:
    assert problems(seqs) == []
    for seq in seqs:
        if seq["kind"] in SINGLE_VALUED:
            current, n = seq["current"][0], len(seq["steps"])
            # a third party's sequence may ask for the user's own value, never changed
            assert seq["stale"] or seq["kind"] == "third", seq["id"]
            # the current value is open unless it is the last step
            assert (current in seq["open"]) == (current != n - 1), seq["id"]


def test_every_step_is_a_value_an_aside_or_an_ending(seqs: list[dict[str, Any]]) -> None:
    for seq in seqs:
        n = len(seq["steps"])
        marked = set(seq["current"]) | set(seq["stale"]) | set(seq["closed"]) | set(seq["open"])
        rest = set(range(n)) - marked
        if seq["kind"] == "ending":
            # the endings, each right after the value it ended (or an aside between)
            assert 1 <= len(rest) <= 2, seq["id"]
            assert all(min(seq["stale"]) < i < max(seq["current"]) for i in rest), seq["id"]
        else:
            assert not rest, seq["id"]
        if seq["kind"] in ("single", "count", "correction", "ending"):
            asides = set(seq["open"]) - set(seq["current"])
            assert len(asides) <= 1, seq["id"]
            assert set(seq["closed"]) == set(seq["stale"]), seq["id"]


def test_a_third_party_change_closes_only_that_party(seqs: list[dict[str, Any]]) -> None:
    thirds = [seq for seq in seqs if seq["kind"] == "third"]
    assert thirds
    for seq in thirds:
        # two owners, each with its own last value left open (or current, as last step)
        last = len(seq["steps"]) - 1
        kept = set(range(len(seq["steps"]))) - set(seq["closed"])
        assert len(kept) == 2, seq["id"]
        assert set(seq["open"]) == kept - ({last} & set(seq["current"])), seq["id"]
        assert len(seq["closed"]) >= 1, seq["id"]


def test_a_third_party_question_asks_for_that_party(seqs: list[dict[str, Any]]) -> None:
    blocks = read_phrases()
    asked: Counter[bool] = Counter()
    for seq in (s for s in seqs if s["kind"] == "third"):
        texts = [step["text"].lower() for step in seq["steps"]]
        (party,) = {
            p.lower()
            for p in blocks[f"third {seq['topic']}"]["p"]
            if any(p.lower() in t for t in texts)
        }
        theirs = {i for i, t in enumerate(texts) if t.startswith(party)}
        assert 0 < len(theirs) < len(texts), seq["id"]
        whose = party in seq["question"].lower()
        assert (party in seq["history"].lower()) == whose, seq["id"]
        assert (seq["current"][0] in theirs) == whose, seq["id"]
        assert {*seq["stale"], *seq["current"]} <= (
            theirs if whose else set(range(len(texts))) - theirs
        )
        asked[whose] += 1
    assert asked[True] and asked[False]


def test_every_phrase_is_filled_in(seqs: list[dict[str, Any]]) -> None:
    texts = [step["text"] for seq in seqs for step in seq["steps"]]
    texts += [seq[key] for seq in seqs for key in ("question", "history")]
    assert not [t for t in texts if "{" in t or "}" in t]
    assert all(t[:1].isupper() or t[:1].isdigit() for t in texts)
    assert all(t == t.strip() and "  " not in t for t in texts)


def test_the_phrase_file_has_every_key_its_kind_needs() -> None:
    need = {
        "generic": {"change", "odd"},
        "single": {"slot", "family", "v", "first", "change", "odd", "q", "h"},
        "multi": {"v", "first", "add", "q", "h"},
        "third": {"p", "v", "own", "ownchange", "pfirst", "pchange", "q_party", "q_own"},
        "ending": {"v", "family", "first", "end", "new", "q", "h"},
        "count": {"start", "family", "first", "change", "q", "h"},
        "correction": {"pair", "family", "first", "fix", "q", "h"},
    }
    blocks = read_phrases()
    assert {key.split(" ", 1)[0] for key in blocks} == set(need)
    for key, block in blocks.items():
        kind = key.split(" ", 1)[0]
        assert need[kind] <= set(block), key
        if "v" in block:
            assert len(set(block["v"])) == len(block["v"]) >= 5, key
