"""Benchmark loaders on small synthetic fixtures: both LoCoMo formats, and BEAM."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hmem_bench.data import load_beam, load_locomo, parse_dia_ids, parse_locomo_date
from hmem_bench.locomo import ABLATIONS, build_items

ORIGINAL = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
                {
                    "speaker": "Ben",
                    "dia_id": "D1:2",
                    "text": "Look!",
                    "blip_caption": "a photo of a bike",
                },
            ],
            "session_2_date_time": "10:04 am on 2 June, 2023",
            "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "I sold my bike."}],
        },
        "observation": {
            "session_1_observation": {
                "Ana": [["Ana adopted a cat named Miso.", "D1:1"]],
                "Ben": [["Ben has a bike.", ["D1:2"]]],
            },
            "session_2_observation": {"Ben": [["Ben sold his bike.", "D2:1; D1:2"]]},
        },
        "qa": [
            {
                "question": "What is Ana's cat called?",
                "answer": "Miso",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {"question": "Adversarial?", "adversarial_answer": "no", "evidence": [], "category": 5},
        ],
    }
]


def test_original_locomo_format(tmp_path: Path) -> None:
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps(ORIGINAL))
    [conv] = load_locomo(path)
    assert conv.conversation_id == "conv-x"
    assert conv.speakers == ("Ana", "Ben")
    assert [s.session_id for s in conv.sessions] == [1, 2]
    assert conv.sessions[0].date == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert "a photo of a bike" in conv.sessions[0].turns[1].text
    assert conv.sessions[1].observations[0].evidence == ("D2:1", "D1:2")
    assert conv.questions[0].evidence == ("D1:1",)
    assert conv.questions[1].answer == "no"
    assert conv.observation_count == 3 and conv.turn_count == 3


def test_locomo_turns_carry_their_speaker(tmp_path: Path) -> None:
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps(ORIGINAL))
    [conv] = load_locomo(path)
    turns = [i for i in build_items(conv, "full") if i.turn is not None]
    # the text keeps its "Name: " form; who said it is the speaker field
    assert [(i.speaker, i.text) for i in turns[:1]] == [("Ana", "Ana: I adopted a cat named Miso.")]
    assert [i.speaker for i in turns] == ["Ana", "Ben", "Ben"]
    assert all(i.speaker is None for i in build_items(conv, "facts"))
    assert ABLATIONS["without the speaker"] == {"speaker": 0.0}


def test_converted_locomo_format(tmp_path: Path) -> None:
    row = {
        "conversation_id": "conv-y",
        "speakers": ["Ana", "Ben"],
        "sessions": [
            {
                "session_id": 1,
                "date": "1:56 pm on 8 May, 2023",
                "date_iso": "2023-05-08T13:56:00",
                "turns": [{"dia_id": "D1:1", "speaker": "Ana", "text": "Hi"}],
                "observations": [{"speaker": "Ana", "text": "Ana said hi.", "evidence": ["D1:1"]}],
            }
        ],
        "qa": [{"question": "Who?", "answer": "Ana", "evidence": ["D:1:1"], "category": 1}],
    }
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps(row) + "\n")
    [conv] = load_locomo(path)
    assert conv.sessions[0].date.tzinfo is not None
    assert conv.questions[0].qa_id == "conv-y:q0"


def test_dia_ids_are_normalised() -> None:
    assert parse_dia_ids("D1:3, D01:4") == ["D1:3", "D1:4"]
    assert parse_dia_ids(["D2:1", "D2:1"]) == ["D2:1"]
    assert parse_dia_ids(None) == []


def test_bad_date_is_refused() -> None:
    with pytest.raises(ValueError, match="unrecognised"):
        parse_locomo_date("sometime in spring")


def test_beam_loader_keeps_knowledge_updates_in_order(tmp_path: Path) -> None:
    chat = {
        "chat_id": "100K/1",
        "messages": [
            {"id": 0, "role": "user", "time_anchor": "2024-03-15", "text": "API takes 400ms."},
            {"id": 2, "role": "user", "time_anchor": "2024-03-15", "text": "API now 250ms."},
        ],
        "probes": [
            {
                "type": "knowledge_update",
                "question": "API time?",
                "answer": "250ms",
                "original_ids": [0],
                "updated_ids": [2],
            },
            {
                "type": "contradiction_resolution",
                "question": "?",
                "answer": "?",
                "statement_ids": [[0], [2]],
            },
        ],
    }
    path = tmp_path / "beam.jsonl"
    path.write_text(json.dumps(chat) + "\n")
    [loaded] = load_beam(path)
    assert len(loaded.probes) == 1
    first, second = loaded.messages
    assert first.at < second.at  # same anchor day, order kept as the clock


SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"


@pytest.mark.skipif(
    not (SHARED / "locomo" / "locomo_dev.jsonl").is_file(),
    reason="the benchmark data (../shared/data) is not beside this checkout",
)
def test_the_real_dev_split_loads() -> None:
    conversations = load_locomo(SHARED / "locomo" / "locomo_dev.jsonl")
    assert len(conversations) == 5
    assert sum(c.observation_count for c in conversations) == 1210
    chats = load_beam(SHARED / "beam" / "beam_100k_dev.jsonl")
    assert len(chats) == 10 and all(c.probes for c in chats)


def test_the_report_header_names_the_data_files(tmp_path: Path) -> None:
    from hmem_bench.report import write_report

    meta = {
        "command": "hmem bench run --locomo x",
        "embedding_model": "sentence-transformers/all-MiniLM-L6-v2",
        "data_files": {"LoCoMo": "/data/locomo10.json"},
        "max_questions": 20,
    }
    write_report({"meta": meta}, tmp_path, plots=False)
    header = (tmp_path / "report.md").read_text()
    assert "Data: LoCoMo: `/data/locomo10.json`, at most 20 questions per conversation." in header
    assert "Dev splits" not in header
    write_report({"meta": {}}, tmp_path, plots=False)
    assert "Data files: not recorded" in (tmp_path / "report.md").read_text()


def test_the_report_gives_bytes_per_fact_and_where_they_go(tmp_path: Path) -> None:
    from hmem_bench.report import write_report

    storage = {
        "facts": 6000,
        "bytes_per_fact": 4443.2,
        "tx_log_bytes_per_fact": 3332.0,
        "by_part_per_fact": {
            "index fact_user (range-1.0)": 74.0,
            "store propertystore.db.arrays": 3367.0,
            "store counts.db": 8.0,
            "index audit_user (range-1.0)": 8.0,
        },
    }
    write_report({"meta": {}, "speed": {"storage": storage}}, tmp_path, plots=False)
    report = (tmp_path / "report.md").read_text()
    assert "| store bytes per fact (6,000 facts, `hmem_bench.storage`) | 4,443 B" in report
    # largest first; parts under 20 bytes summed
    assert "store propertystore.db.arrays 3,367, index fact_user (range-1.0) 74, the rest 16." in (
        report
    )
