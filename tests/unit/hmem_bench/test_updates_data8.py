"""The eighth development split of issue 47 (``hmem_bench.updates_data8``): the file is what
the seeded generator writes (``--check`` says so too), ``updates.load`` reads every
sequence, every sequence keeps the shared schema (``updates_schema.problems``) and this
split's own rules (the kinds and the singles' two groups in their planned numbers, every
value named in its step, chains of the planned lengths, counts that grow, corrections that
name the slip and the value, the other person kept apart, no phrase used too often,
statements a person would type to an assistant)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from hmem_bench import updates_data8
from hmem_bench.updates import load
from hmem_bench.updates_data8 import (
    GROUPS,
    MAX_WORDS,
    ORDINALS,
    PATH,
    PHRASES,
    PLAN,
    SEED,
    WORDS,
    build,
    build_full,
    dump,
    fill,
    ordinal,
    read_phrases,
    topics,
)
from hmem_bench.updates_schema import SINGLE_VALUED, problems

FIELDS = {"id", "kind", "topic", "steps", "question", "history"}
FIELDS |= {"current", "stale", "closed", "open"}
Full = list[tuple[dict[str, Any], dict[str, Any]]]


@pytest.fixture(scope="module")
def seqs() -> list[dict[str, Any]]:
    return load(PATH)


@pytest.fixture(scope="module")
def full() -> Full:
    return build_full()


@pytest.fixture(scope="module")
def phrases() -> dict[str, dict[str, list[str]]]:
    return read_phrases()


def _names(text: str, value: str) -> bool:
    """``text`` names ``value`` as a whole (not inside a longer word), in any case."""
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE) is not None


def _of(kind: str, full: Full) -> Full:
    return [(seq, meta) for seq, meta in full if seq["kind"] == kind]


def test_the_file_is_what_the_generator_writes(tmp_path: Path) -> None:
    assert PATH.read_text(encoding="utf-8") == dump(build())
    assert SEED == 8123
    assert dump(build(seed=SEED + 1)) != dump(build())
    assert updates_data8.main(["--check"]) == 0
    stale = tmp_path / "updates_dev8.jsonl"
    stale.write_text(PATH.read_text(encoding="utf-8").replace("Leeds", "Leodis"), "utf-8")
    # a file that differs fails the check
    assert updates_data8.main(["--check", "--data", str(stale)]) == 1
    assert updates_data8.main(["--data", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == PATH.read_text(encoding="utf-8")


def test_the_loader_reads_every_sequence(seqs: list[dict[str, Any]]) -> None:
    assert seqs == build()
    assert len(seqs) == sum(PLAN.values()) == 360
    assert len({seq["id"] for seq in seqs}) == len(seqs)
    for seq in seqs:
        assert set(seq) == FIELDS, seq["id"]
        assert seq["question"] and seq["history"] and seq["history"] != seq["question"]
        assert all(set(step) == {"text", "day"} and step["text"] for step in seq["steps"])
        days = [step["day"] for step in seq["steps"]]
        assert days[0] == 0 and all(a < b for a, b in pairwise(days)), seq["id"]
        assert all(isinstance(day, int) for day in days), seq["id"]


def test_the_split_keeps_the_schema(seqs: list[dict[str, Any]]) -> None:
    assert problems(seqs) == []
    for seq in seqs:
        if seq["kind"] in SINGLE_VALUED:
            assert seq["stale"], seq["id"]  # the asked slot always had an earlier value
            assert seq["closed"] and len(seq["steps"]) - 1 not in seq["closed"], seq["id"]


def test_kinds_groups_and_topics_in_their_planned_numbers(
    seqs: list[dict[str, Any]], phrases: dict[str, dict[str, list[str]]]
) -> None:
    assert Counter(seq["kind"] for seq in seqs) == Counter(PLAN)
    assert PLAN == {
        "single": 150,
        "multi": 40,
        "third": 40,
        "ending": 40,
        "count": 40,
        "correction": 50,
    }
    groups = Counter(
        phrases[f"single {seq['topic']}"]["group"][0] for seq in seqs if seq["kind"] == "single"
    )
    assert groups == {"personal": 50, "life": 100} == dict(GROUPS["single"])
    topic_counts = Counter((seq["kind"], seq["topic"]) for seq in seqs)
    for kind, total in PLAN.items():
        for group, count in GROUPS.get(kind, (("", total),)):
            rotation = topics(phrases, kind, group)
            planned = Counter(rotation[i % len(rotation)] for i in range(count))
            got = {t: n for (k, t), n in topic_counts.items() if k == kind and t in planned}
            assert got == planned, (kind, group)
            assert len(set(rotation)) >= 6, (kind, group)
    singles = {t for k, t in topic_counts if k == "single"}
    names = {"name", "nickname", "username", "surname", "address"}
    favourites = {"colour", "food", "film", "band", "book", "team", "drink", "tvshow"}
    life = {"city", "neighbourhood", "employer", "jobtitle", "manager", "partner", "car"}
    life |= {"phone", "gym", "doctor", "school", "milk", "diet", "birthday", "age", "email"}
    life |= {"hair", "commute"}
    assert singles == names | favourites | life
    assert topic_counts["single", "name"] >= 2 * topic_counts["single", "film"]
    assert topic_counts["single", "city"] >= 2 * topic_counts["single", "gym"]


def test_every_value_is_named_in_its_step(full: Full) -> None:
    for seq, meta in full:
        values: dict[int, str] = meta["values"]
        steps = [step["text"] for step in seq["steps"]]
        for i in seq["current"] + seq["stale"]:
            if seq["kind"] == "count":  # digits, a word or an ordinal: checked below
                continue
            assert i in values and _names(steps[i], values[i]), (seq["id"], i)
        chain = [values[i] for i in sorted(values)]
        for a in chain:  # no value of a chain hides inside another
            assert not any(a != b and _names(b, a) for b in chain), (seq["id"], a)
        if seq["kind"] in ("single", "multi", "count"):
            for i in values:  # a step names no value that comes after it
                after = {values[j] for j in values if j > i} - {values[i]}
                assert not any(_names(steps[i], v) for v in after), (seq["id"], i)


def test_chains_have_their_planned_lengths(
    full: Full, phrases: dict[str, dict[str, list[str]]]
) -> None:
    lengths: Counter[tuple[str, int]] = Counter()
    for seq, _ in full:
        values = len(seq["current"]) + len(seq["stale"])
        block = phrases[f"{seq['kind']} {seq['topic']}"]
        top = int(block.get("max", ["5"])[0])
        if seq["kind"] == "single":
            group = block["group"][0]
            low = 3 if group == "personal" else 2
            assert low <= values <= top, seq["id"]
            lengths[group, values] += 1
        elif seq["kind"] == "multi":
            assert 2 <= values <= 5 and len(seq["steps"]) == values, seq["id"]
        else:
            assert 2 <= values <= 5, seq["id"]
    assert lengths["personal", 5] >= 10 and lengths["personal", 3] >= 5
    assert lengths["life", 2] >= 15 and lengths["life", 5] >= 5


def test_unrelated_statements_sit_between_values_and_stay_open(
    full: Full, phrases: dict[str, dict[str, list[str]]]
) -> None:
    asides = set(phrases["generic"]["aside"])
    holding: Counter[str] = Counter()
    for seq, meta in full:
        at = sorted(i for i, role in meta["roles"].items() if role == "aside")
        if not at:
            continue
        holding[seq["kind"]] += 1
        assert {seq["steps"][i]["text"] for i in at} <= asides, seq["id"]
        assert set(at) <= set(seq["open"]), seq["id"]
        assert all(0 < i < len(seq["steps"]) - 1 for i in at), seq["id"]
    assert 15 <= holding["single"] <= 45
    assert holding["ending"] >= 10 and holding["correction"] >= 10
    assert set(holding) == {"single", "ending", "correction"}


def test_values_that_add_up_all_stay_current(full: Full) -> None:
    for seq, meta in _of("multi", full):
        every = list(range(len(seq["steps"])))
        assert seq["current"] == seq["open"] == every and not seq["stale"], seq["id"]
        assert len(set(meta["values"].values())) == len(every), seq["id"]


def test_another_persons_value_is_kept_apart(
    full: Full, phrases: dict[str, dict[str, list[str]]]
) -> None:
    parties = phrases["parties"]["p"]

    def party(text: str) -> str | None:
        low = text.lower()
        named = [p for p in parties if re.search(rf"\bmy {re.escape(p)}\b", low)]
        return max(named, key=len) if named else None

    asked: Counter[str] = Counter()
    for seq, meta in _of("third", full):
        p = meta["party"]
        whose = [party(step["text"]) for step in seq["steps"]]
        assert set(whose) == {None, p}, seq["id"]
        own = meta["asked"] == "own"
        asked[meta["asked"]] += 1
        assert party(seq["question"]) == party(seq["history"]) == (None if own else p)
        chain = seq["current"] + seq["stale"]
        for i, who in enumerate(whose):
            assert (i in chain) == ((who is None) == own), (seq["id"], i)
        last = len(seq["steps"]) - 1
        kept = set(range(len(seq["steps"]))) - set(seq["closed"])
        assert len(kept) == 2, seq["id"]  # each person's latest value
        assert set(seq["open"]) == kept - ({last} & set(seq["current"])), seq["id"]
    assert asked == {"own": 20, "party": 20}
    third = [seq for seq, _ in _of("third", full)]
    assert len({party(seq["question"]) for seq in third}) >= 12


def test_an_ending_comes_between_the_old_value_and_the_new(full: Full) -> None:
    together = 0
    for seq, meta in _of("ending", full):
        ends = [i for i, role in meta["roles"].items() if role == "end"]
        named = set(seq["current"]) | set(seq["closed"]) | set(seq["open"])
        assert set(range(len(seq["steps"]))) - named == set(ends), seq["id"]
        assert seq["closed"] == seq["stale"], seq["id"]
        assert seq["current"] == [len(seq["steps"]) - 1], seq["id"]
        if ends:
            assert len(ends) == 1 and max(seq["stale"]) < ends[0] < seq["current"][0]
        else:  # the end and the new value in one message, the old value named in it
            together += 1
            text = seq["steps"][-1]["text"]
            assert _names(text, meta["values"][seq["stale"][-1]]), seq["id"]
    assert 5 <= together <= 15


def test_counts_grow_and_ordinals_add_one(full: Full) -> None:
    ordinal_words = re.compile(rf"\b(?:{'|'.join(ORDINALS[2:])}|\d+(?:st|nd|rd|th))\b")
    forms: Counter[str] = Counter()
    for seq, meta in _of("count", full):
        numbers = [int(meta["values"][i]) for i in range(len(seq["steps"]))]
        assert all(a < b for a, b in pairwise(numbers)), seq["id"]
        for i, (step, n) in enumerate(zip(seq["steps"], numbers, strict=True)):
            text = step["text"].lower()
            said = {
                "digits": _names(text, str(n)),
                "word": n < len(WORDS) and _names(text, WORDS[n]),
                "ordinal": (n < len(ORDINALS) and _names(text, ORDINALS[n]))
                or _names(text, ordinal(n)),
            }
            assert any(said.values()), (seq["id"], text)
            forms.update(k for k, v in said.items() if v)
            if ordinal_words.search(text):
                assert i > 0 and n == numbers[i - 1] + 1, (seq["id"], text)
    assert min(forms.values()) >= 10 and set(forms) == {"digits", "word", "ordinal"}


def test_a_correction_names_the_slip_and_the_value(
    full: Full, phrases: dict[str, dict[str, list[str]]]
) -> None:
    shapes: Counter[str] = Counter()
    fixnow = set(phrases["generic"]["fixnow"])
    for seq, meta in _of("correction", full):
        roles = meta["roles"]
        pairs = [p.split(" ~ ") for p in phrases[f"correction {seq['topic']}"]["v"]]
        assert all(len(p) == 2 and p[0] != p[1] for p in pairs)
        (slip,) = [i for i, r in roles.items() if r == "slip"]
        fix = seq["current"][0]
        assert fix == len(seq["steps"]) - 1 and roles[fix] == "fix", seq["id"]
        value, wrong = meta["values"][fix], meta["values"][slip]
        assert [value, wrong] in pairs, seq["id"]
        assert _names(seq["steps"][fix]["text"], value), seq["id"]
        assert _names(seq["steps"][slip]["text"], wrong), seq["id"]
        before = sorted(i for i, r in roles.items() if r in ("earlier", "slip"))
        assert seq["stale"] == seq["closed"] == before, seq["id"]
        gap = seq["steps"][fix]["day"] - seq["steps"][slip]["day"]
        if slip == fix - 1:
            shapes["next day" if gap == 1 else "days later"] += 1
        else:  # an unrelated statement between: the fix names its slot, not a bare value
            shapes["aside between"] += 1
            assert meta["templates"][fix] not in fixnow, seq["id"]
        if "earlier" in roles.values():
            shapes["after a genuine change"] += 1
    assert shapes["next day"] >= 15 and shapes["aside between"] >= 10
    assert shapes["days later"] >= 5 and shapes["after a genuine change"] >= 10


def test_no_phrase_is_used_too_often(full: Full) -> None:
    texts: Counter[str] = Counter()
    templates: Counter[tuple[str, str, str]] = Counter()
    for seq, meta in full:
        for i, step in enumerate(seq["steps"]):
            if meta["roles"][i] != "aside":
                texts[step["text"]] += 1
                templates[seq["kind"], seq["topic"], meta["templates"][i]] += 1
    assert max(texts.values()) <= 4, texts.most_common(3)
    assert max(templates.values()) <= 8, templates.most_common(3)
    for seq, meta in full:  # a chain does not repeat a phrase while its pool has another
        used = [meta["templates"][i] for i in sorted(meta["templates"])]
        if seq["kind"] in ("single", "multi", "correction"):
            assert len(used) == len(set(used)), seq["id"]


def test_every_statement_is_one_a_person_would_type(full: Full) -> None:
    seqs = [seq for seq, _ in full]
    texts = [step["text"] for seq in seqs for step in seq["steps"]]
    asked = [seq[key] for seq in seqs for key in ("question", "history")]
    assert not [t for t in texts + asked if "{" in t or "}" in t or "  " in t]
    assert all(t == t.strip() and t for t in texts + asked)
    assert max(len(t.split()) for t in texts) <= MAX_WORDS
    assert sum(t[:1].islower() for t in texts) > len(texts) / 12  # typed casually
    assert sum(not t.endswith((".", "!", "?")) for t in texts) > len(texts) / 12
    notes = sum(bool(re.match(r"^[\w ]{3,30}: ", t)) for t in texts)
    assert 10 <= notes < len(texts) / 8  # terse notes, now and then
    assert sum(len(t.split()) >= 15 for t in texts) >= 20  # the update one clause of many
    low = " ".join(texts).lower()
    for cue in ("no longer", "anymore", "has changed to", "these days", " is out, ", "@"):
        assert low.count(cue) >= 5, cue
    for cue in ("answer to", "moved from", "just moved to", "correction:", "i meant"):
        assert low.count(cue) >= 2, cue
    for cue in ("mistyped", "scratch that", "earlier but", "wait, no", "wait no", "lol"):
        assert low.count(cue) >= 1, cue
    for typo in ("finaly", "becuase", "recieved", "definately", "alot", "teh"):
        assert re.search(rf"\b{typo}\b", low), typo
    assert len({seq["question"] for seq in seqs}) > 150
    assert len({seq["history"] for seq in seqs}) > 100
    with pytest.raises(ValueError, match="unfilled placeholder"):
        fill("my {slot} is {v}", v="x")
    assert fill("{V} is my favourite colour now", v="teal") == "Teal is my favourite colour now"
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"
    ]  # fmt: skip


def test_the_phrase_file_has_every_key_its_kind_needs(
    phrases: dict[str, dict[str, list[str]]],
) -> None:
    need = {
        "single": {"group"},
        "multi": {"v", "first", "add", "q", "h"},
        "third": {"v", "own", "ownchange", "pfirst", "pchange"}
        | {"q_own", "q_party", "h_own", "h_party"},
        "ending": {"v", "first", "end", "new", "endnew", "q", "h"},
        "count": {"range", "step", "first", "change", "ord", "q", "h"},
        "correction": {"v", "first", "fix", "q", "h"},
    }
    generic = phrases["generic"]
    assert PHRASES.exists()
    assert len(phrases["parties"]["p"]) >= 20
    assert len(generic["aside"]) >= 12 and len(generic["fixnow"]) >= 12
    assert len(generic["fav_change"]) >= 15
    for key, block in phrases.items():
        kind = key.split(" ", 1)[0]
        if kind in ("generic", "parties"):
            continue
        assert need[kind] <= set(block), key
        if kind == "single":  # a favourite's noun (the generic pools serve it) or its own
            assert "v" in block or "range" in block, key
            assert "slot" in block or {"first", "change", "q", "h"} <= set(block), key
        if "v" in block:
            assert len(set(block["v"])) == len(block["v"]) >= 7, key
