"""The fifth development split of issue 47 (``hmem_bench.updates_data5``): the file is what
the seeded generator writes, ``updates.load`` reads every sequence, and every sequence is
well formed (indices in range, the sets consistent, ids unique, days increasing, the kinds
in their planned numbers)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from hmem_bench.updates import load
from hmem_bench.updates_data5 import PATH, PLAN, SEED, build, dump, fill, read_phrases
from hmem_bench.updates_schema import SINGLE_VALUED, problems

FIELDS = {"id", "kind", "topic", "steps", "question", "current", "stale", "closed", "open"}


@pytest.fixture(scope="module")
def seqs() -> list[dict[str, Any]]:
    return load(PATH)


def test_the_file_is_what_the_generator_writes() -> None:
    assert PATH.read_text(encoding="utf-8") == dump(build())
    assert SEED not in (4703, 9147)
    assert dump(build(seed=SEED + 1)) != dump(build())


def test_the_loader_reads_every_sequence(seqs: list[dict[str, Any]]) -> None:
    assert seqs == build()
    assert len(seqs) == sum(PLAN.values()) >= 300
    for seq in seqs:
        assert set(seq) == FIELDS | {"history"}
        assert seq["question"]
        assert seq["history"]
        assert all(set(step) == {"text", "day"} and step["text"] for step in seq["steps"])


def test_kinds_in_their_planned_numbers(seqs: list[dict[str, Any]]) -> None:
    kinds = Counter(seq["kind"] for seq in seqs)
    assert kinds == Counter(PLAN)
    shares = {"single": 0.55, "multi": 0.12, "third": 0.12, "ending": 0.08, "count": 0.07}
    for kind, share in shares.items():
        assert abs(kinds[kind] / len(seqs) - share) < 0.01, kind
    topics = Counter((seq["kind"], seq["topic"]) for seq in seqs)
    for kind in PLAN:
        per_topic = [n for (k, _), n in topics.items() if k == kind]
        assert len(per_topic) >= 5, kind
        assert max(per_topic) - min(per_topic) <= 1, kind
    assert len({t for k, t in topics if k == "single"}) >= 40


def test_the_split_keeps_the_schema_and_its_own_rules(seqs: list[dict[str, Any]]) -> None:
    assert problems(seqs) == []
    for seq in seqs:
        assert len(seq["steps"]) - 1 not in seq["closed"], seq["id"]  # nothing comes after
        if seq["kind"] in SINGLE_VALUED:
            # a third party's sequence may ask for the user's own value, never changed
            assert seq["stale"] or seq["kind"] == "third", seq["id"]


def test_chains_have_two_to_five_values(seqs: list[dict[str, Any]]) -> None:
    for seq in seqs:
        values = len(seq["current"]) + len(seq["stale"])
        assert 2 <= values <= 5 or seq["kind"] == "third", seq["id"]
    interludes = [seq for seq in seqs if seq["kind"] == "single" and seq["open"]]
    assert 0.15 < len(interludes) / PLAN["single"] < 0.45
    for seq in interludes:
        # the statement of another slot sits between two values, never last
        assert all(0 < i < len(seq["steps"]) - 1 for i in seq["open"]), seq["id"]
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


def test_a_third_party_change_closes_only_that_party(seqs: list[dict[str, Any]]) -> None:
    thirds = [seq for seq in seqs if seq["kind"] == "third"]
    parties = read_phrases()["parties"]["p"]

    def party(text: str) -> str | None:
        """The relation a statement is about ("my twin brother"), the longest named."""
        named = [p for p in parties if any(f"{w} {p}" in text for w in ("my", "user's"))]
        return max(named, key=len) if named else None

    asked_own = 0
    for seq in thirds:
        # two owners, each with its own last value left open (or current, as last step)
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
        # the asked owner's values are every step of that owner, the rest the other's
        for i, who in enumerate(whose):
            assert (i in asked) == ((who is None) == own), (seq["id"], i)
    # most ask about the other person, some about the user's own value
    assert 0 < asked_own < len(thirds) / 2


def test_every_phrase_is_filled_in(seqs: list[dict[str, Any]]) -> None:
    texts = [step["text"] for seq in seqs for step in seq["steps"]]
    texts += [seq[key] for seq in seqs for key in ("question", "history")]
    assert not [t for t in texts if "{" in t or "}" in t]
    assert all(t == t.strip() and t for t in texts)
    # chatty: some start lowercase, some report "the user"
    assert sum(t[:1].islower() for t in texts) > len(texts) / 4
    assert sum(t.lower().startswith("the user") for t in texts) > 20
    with pytest.raises(ValueError, match="unfilled placeholder"):
        fill("my {slot} is {v}", v="x")


def test_the_phrase_file_has_every_key_its_kind_needs() -> None:
    need = {
        "generic": {"change"},
        "parties": {"p"},
        "single": {"v", "first", "change", "q", "h"},
        "multi": {"v", "first", "add", "q", "h"},
        "third": {"v", "own", "ownchange", "pfirst", "pchange"}
        | {"q_party", "q_own", "h_party", "h_own"},
        "ending": {"v", "first", "end", "new", "q", "h"},
        "count": {"unit", "range", "first", "change", "q", "h"},
        "correction": {"v", "first", "fix", "q", "h"},
    }
    phrases = read_phrases()
    assert len(phrases["parties"]["p"]) >= 30
    for key, block in phrases.items():
        kind = key.split(" ", 1)[0]
        assert need[kind] <= set(block), key
        if "v" in block:
            assert len(set(block["v"])) == len(block["v"]) >= 6, key
