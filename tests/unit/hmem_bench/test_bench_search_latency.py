"""The search-latency bench's arithmetic and report files (no database, no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hmem_bench.latency_search import SearchRun, pct, write_search_report


def test_the_ratio_and_the_shares_come_from_the_same_run(tmp_path: Path) -> None:
    run = SearchRun("LoCoMo conv-26 facts + turns", 603)
    run.search = [12.0, 14.0, 40.0]
    run.embed = [5.0, 6.0, 20.0]
    run.server = [4.0, 4.0, 10.0]
    run.client = [2.0, 2.0, 6.0]
    run.ranking = [1.0, 1.0, 2.0]
    assert pct(run.search, 50) == 14.0
    assert run.ratio_of_p50() == pytest.approx(14.0 / (6.0 + 4.0))
    assert run.ratio_median() == pytest.approx(sorted([12 / 9, 14 / 10, 40 / 30])[1])
    text = "\n".join(run.lines())
    assert "shares of search(): embed 47 %, server 27 %, Bolt client 15 %" in text
    assert "search() / (embedding + server): 1.40 (of the p50s)" in text

    write_search_report(tmp_path, [run], "python -m hmem_bench.latency --search-only")
    data = json.loads((tmp_path / "search_latency.json").read_text())
    assert data["shapes"][0]["search_ms"] == [14.0, 40.0, 40.0]
    assert data["shapes"][0]["http_ms"] is None
    assert data["meta"]["command"] == "python -m hmem_bench.latency --search-only"
    assert "search() end to end" in (tmp_path / "search_latency.md").read_text()
