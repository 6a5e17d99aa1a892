"""The README's examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

from hmem import Memory

README = Path(__file__).parents[2] / "README.md"


def test_python_tour_runs(memory: Memory, capsys: object) -> None:
    [code] = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the documented example
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "Maya moved from London to Paris in March 2026. | before: Maya lives in London." in out
    assert "\nMaya lives in London.\n" in out  # "before?" ranks the closed fact first
    assert "replaced on 2026-03-02 by: Maya moved from London to Paris" in out
    assert memory.store.counts("tour")["any_nodes"] == 0


def test_cli_commands_in_readme_exist() -> None:
    from click.testing import CliRunner

    from hmem.cli import main

    for line in re.findall(r"^\.venv/bin/hmem (\w[\w-]*)", README.read_text(), flags=re.M):
        result = CliRunner().invoke(main, [line, "--help"])
        assert result.exit_code == 0, line
