"""The README's CLI commands exist (the whole tour runs in test_first_hour.py)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def test_cli_commands_in_readme_exist() -> None:
    from click.testing import CliRunner

    from hmem.cli import main

    for line in re.findall(r"^\.venv/bin/hmem (\w[\w-]*)", README.read_text(), flags=re.M):
        result = CliRunner().invoke(main, [line, "--help"])
        assert result.exit_code == 0, line


def test_tenant_and_user_name_one_user_or_are_refused() -> None:
    from click.testing import CliRunner

    from hmem.cli import main

    bad = CliRunner().invoke(main, ["facts", "--tenant", "demo", "--user", "demo:maya"])
    assert bad.exit_code == 2 and "a user name is 1-128 characters" in bad.output
    mixed = ["mcp", "--tenant", "demo", "--user", "maya", "--api-url", "http://127.0.0.1:9"]
    refused = CliRunner().invoke(main, mixed)
    assert refused.exit_code == 2 and "the key decides the tenant" in refused.output
