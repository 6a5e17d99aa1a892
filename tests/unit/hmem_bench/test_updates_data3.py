"""The third development split of issue 47 (``hmem_bench.updates_data3``): the file is what
the seeded generator writes, ``updates.load`` reads it, and every sequence is well formed
(indices in range, ids unique, days increasing, the kinds in their planned numbers)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from hmem_bench.updates import load
from hmem_bench.updates_data3 import PATH, PLAN, build, dump, read_phrases
from hmem_bench.updates_schema import SINGLE_VALUED, problems

FIELDS = {"id", "kind", "topic", "steps", "question", "current", "stale", "closed", "open"}


@pytest.fixture(scope="module")
def seqs() -> list[dict[str, Any]]:
    return load(PATH)


def test_the_file_is_what_the_generator_writes() -> None:
    assert PATH.read_text(encoding="utf-8") == dump(build())
    assert dump(build()) == dump(build())


def test_the_loader_reads_every_sequence(seqs: list[dict[str, Any]]) -> None:
    assert seqs == build()
    assert len(seqs) >= 260
    for seq in seqs:
        assert set(seq) == FIELDS | {"history"}
        assert seq["question"]
        assert seq["history"]
        assert all(set(step) == {"text", "day"} and step["text"] for step in seq["steps"])


def test_kinds_in_their_planned_numbers(seqs: list[dict[str, Any]]) -> None:
    kinds = Counter(seq["kind"] for seq in seqs)
    assert kinds == Counter(PLAN)
    assert round(kinds["single"] / len(seqs), 2) == 0.55
    topics = Counter((seq["kind"], seq["topic"]) for seq in seqs)
    for kind in PLAN:
        per_topic = [n for (k, _), n in topics.items() if k == kind]
        assert len(per_topic) >= 4
        assert max(per_topic) - min(per_topic) <= 1


def test_the_split_keeps_the_schema_and_its_own_rules(seqs: list[dict[str, Any]]) -> None:
    assert problems(seqs) == []
    for seq in seqs:
        if seq["kind"] in SINGLE_VALUED:
            # a third party's sequence may ask for the user's own value, never changed
            assert seq["stale"] or seq["kind"] == "third", seq["id"]


def test_a_third_party_change_closes_only_that_party(seqs: list[dict[str, Any]]) -> None:
    thirds = [seq for seq in seqs if seq["kind"] == "third"]
    assert thirds
    for seq in thirds:
        # two owners, each with its own last value left open (or current, as last step)
        last = len(seq["steps"]) - 1
        kept = set(range(len(seq["steps"]))) - set(seq["closed"])
        assert len(kept) == 2, seq["id"]
        assert set(seq["open"]) == kept - ({last} & set(seq["current"])), seq["id"]


def test_every_phrase_is_filled_in(seqs: list[dict[str, Any]]) -> None:
    texts = [step["text"] for seq in seqs for step in seq["steps"]]
    texts += [seq[key] for seq in seqs for key in ("question", "history")]
    assert not [t for t in texts if "{" in t or "}" in t]
    assert all(t[:1].isupper() or t[:1].isdigit() for t in texts)


def test_the_phrase_file_has_every_key_its_kind_needs() -> None:
    need = {
        "generic": {"change", "odd"},
        "single": {"slot", "first", "change", "odd", "q", "h"},
        "multi": {"v", "first", "add", "q", "h"},
        "third": {"p", "v", "own", "ownchange", "pfirst", "pchange", "q_party", "q_own"},
        "ending": {"v", "first", "end", "new", "q", "h"},
        "count": {"first", "change", "q", "h"},
        "correction": {"v", "first", "fix", "q", "h"},
    }
    for key, block in read_phrases().items():
        kind = key.split(" ", 1)[0]
        assert need[kind] <= set(block), key
