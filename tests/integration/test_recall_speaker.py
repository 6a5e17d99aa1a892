"""Who said a turn: ``FactDraft.speaker`` is stored folded on the fact, read back, and
a question that names the speaker ranks that person's turns higher (the 'speaker'
signal, scored by the server and by hmem.recall.scoring alike)."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from hmem import Config, Memory
from hmem.cli import main
from hmem.models import EntityRef, FactDraft

NOW = datetime(2026, 6, 1, tzinfo=UTC)
DAY = datetime(2026, 5, 2, tzinfo=UTC)

# The same words in each pair, so only the speaker tells the turns apart.
CHAT = [
    ("Melanie", "I painted the lake today."),
    ("Caroline", "Today I painted the lake."),
    ("Melanie", "We went camping with the kids."),
    ("Caroline", "The kids went camping with us."),
]


def _chat(memory: Memory, user: str, *, speakers: bool = True) -> dict[str, str]:
    drafts = [
        FactDraft(text=text, turn=i, speaker=f"  {who.upper()} " if speakers else None)
        for i, (who, text) in enumerate(CHAT)
    ]
    written = memory.remember_many(drafts, user_id=user, observed_at=DAY, session_id="s1")
    assert len(written.added) == len(CHAT)
    return {
        f"{who}{i}": fid for i, ((who, _), fid) in enumerate(zip(CHAT, written.added, strict=True))
    }


def test_the_turn_said_by_the_named_person_ranks_first(memory: Memory, user_id: str) -> None:
    ids = _chat(memory, user_id)
    stored = memory.get(ids["Caroline1"], user_id=user_id)
    assert stored.speaker == "caroline"  # folded: casefold, stripped
    for asked, said in (("Caroline", "Caroline1"), ("Melanie", "Melanie0")):
        result = memory.search(f"What did {asked} paint at the lake?", user_id=user_id, now=NOW)
        top = result.hits[0]
        assert top.fact.id == ids[said]
        assert top.raw["speaker"] == 1.0 and top.parts["speaker"] > 0
        assert "speaker" in top.sources
        other = next(h for h in result.hits if h.fact.id != ids[said] and "lake" in h.fact.text)
        assert "speaker" not in other.parts
        # the speaker counts in the final score only, not in the graph step's seeds: the
        # two turns differ by exactly its weight
        assert abs(top.score - other.score - memory.recall.weights.speaker) < 1e-9
        assert result.timings.round_trips == 1  # the server chose what Python chose


def test_an_alias_of_the_speaker_counts(memory: Memory, user_id: str) -> None:
    memory.remember(
        "Caroline is a counsellor.",
        user_id=user_id,
        entities=[EntityRef(name="Caroline", type="person", aliases=["Caro"])],
        observed_at=DAY,
    )
    ids = _chat(memory, user_id)
    result = memory.search("What did Caro paint at the lake?", user_id=user_id, now=NOW)
    assert result.hits[0].fact.id == ids["Caroline1"]
    assert result.hits[0].parts["speaker"] > 0


def test_a_store_without_speakers_ranks_as_before(memory: Memory, user_id: str) -> None:
    _chat(memory, user_id, speakers=False)
    question = "What did Caroline paint at the lake?"
    result = memory.search(question, user_id=user_id, now=NOW)
    assert all(h.fact.speaker is None and "speaker" not in h.raw for h in result.hits)
    weights = memory.recall.weights
    try:
        memory.recall.weights = dataclasses.replace(weights, speaker=0.0)
        before = memory.search(question, user_id=user_id, now=NOW)
    finally:
        memory.recall.weights = weights
    assert [(h.fact.id, h.score) for h in result.hits] == [
        (h.fact.id, h.score) for h in before.hits
    ]


def test_without_the_weight_the_speaker_is_shown_but_weighs_nothing(
    memory: Memory, user_id: str
) -> None:
    ids = _chat(memory, user_id)
    weights = memory.recall.weights
    try:
        memory.recall.weights = dataclasses.replace(weights, speaker=0.0)
        result = memory.search("What did Caroline paint at the lake?", user_id=user_id, now=NOW)
    finally:
        memory.recall.weights = weights
    scores = {h.fact.id: h for h in result.hits}
    said, other = scores[ids["Caroline1"]], scores[ids["Melanie0"]]
    assert said.raw["speaker"] == 1.0 and said.parts["speaker"] == 0.0
    assert abs(said.score - other.score) < 1e-9


def test_the_speaker_survives_export_and_history(memory: Memory, user_id: str) -> None:
    ids = _chat(memory, user_id)
    exported = {f.id: f.speaker for f in memory.export(user_id).facts}
    assert exported[ids["Caroline1"]] == "caroline" and exported[ids["Melanie0"]] == "melanie"
    assert memory.history(ids["Melanie2"], user_id=user_id).fact.speaker == "melanie"
    listed = {f.id: f.speaker for f in memory.facts(user_id=user_id)}
    assert listed == exported


def test_the_cli_writes_a_speaker_and_explains_its_part(
    config: Config, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in config.model_dump(mode="json").items():
        if key in ("neo4j_uri", "neo4j_home", "neo4j_database", "neo4j_user") and value:
            monkeypatch.setenv(f"HMEM_{key.upper()}", str(value))
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "none")
    runner = CliRunner()
    for who, text in (("Caroline", "Today I painted the lake."), ("Melanie", "I painted a boat.")):
        out = runner.invoke(main, ["remember", "--user", user_id, "--speaker", who, text])
        assert out.exit_code == 0, out.output
    out = runner.invoke(
        main, ["search", "--user", user_id, "--explain", "What did Caroline paint?"]
    )
    assert out.exit_code == 0, out.output
    # the context line, "today" with the day it meant beside it (issue 49 item 11)
    assert re.search(r"- caroline: Today \[\d{4}-\d\d-\d\d\] I painted the lake \(", out.output)
    assert "speaker 0.130" in out.output  # the weighted part, as --explain lists parts
