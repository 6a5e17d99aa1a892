"""`hmem bench …` is a thin entry point: the commands live in hmem_bench, loaded only
when a bench command runs, with a clear error where the benchmark is not installed."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from hmem.cli import main


def test_bench_commands_come_from_the_benchmark_package() -> None:
    result = CliRunner().invoke(main, ["bench", "--help"])
    assert result.exit_code == 0, result.output
    for command in ("run", "reliability", "first-search", "ner"):
        assert command in result.output


def test_a_missing_benchmark_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes `import hmem_bench.cli` fail as if it were not installed
    monkeypatch.setitem(sys.modules, "hmem_bench.cli", None)
    result = CliRunner().invoke(main, ["bench", "ner"])
    assert result.exit_code == 1
    assert "pip install 'hmem[bench]'" in result.output
