"""`hmem forget` (a retraction, or `--never-true` for a correction) and `hmem restore`
from the command line (issue 49 item 7): the same ``Memory.close`` / ``Memory.restore``
the API's close and restore routes call."""

from __future__ import annotations

from datetime import UTC, datetime

from click.testing import CliRunner

from hmem import Memory
from hmem.cli import main

DAY = datetime(2026, 2, 1, 9, tzinfo=UTC)


def test_forget_then_restore_and_never_true(memory: Memory, user_id: str) -> None:
    runner = CliRunner()
    help_text = runner.invoke(main, ["--help"]).output
    assert "forget" in help_text and "restore" in help_text

    oslo = memory.remember("Ida lives in Oslo.", user_id=user_id, observed_at=DAY).added[0]
    cat = memory.remember("Ida has a cat.", user_id=user_id, observed_at=DAY).added[0]

    out = runner.invoke(main, ["forget", "--user", user_id, oslo])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("closed (retraction): ") and "Ida lives in Oslo." in out.output
    closed = memory.get(oslo, user_id=user_id)
    # a retraction withdraws belief from now on; its window stays as it was believed
    # (docs/time.md): no longer believed, nothing said about when it stopped being true
    assert closed.close_reason == "retraction" and closed.known_to is not None
    assert closed.valid_to is None
    assert [f.id for f in memory.facts(user_id=user_id)] == [cat]

    # closing it twice is a clear error, not a second closure
    out = runner.invoke(main, ["forget", "--user", user_id, oslo])
    assert out.exit_code != 0 and "already closed" in out.output

    out = runner.invoke(main, ["restore", "--user", user_id, oslo])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("restored: ") and "open" in out.output
    assert memory.get(oslo, user_id=user_id).is_open

    out = runner.invoke(main, ["forget", "--never-true", "--user", user_id, cat])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("closed (user_edit): ")
    never = memory.get(cat, user_id=user_id)
    assert never.close_reason == "user_edit" and never.valid_to == never.valid_from

    out = runner.invoke(main, ["forget", "--never-true", "--at", "2026-03-01T00:00:00Z",
                               "--user", user_id, oslo])  # fmt: skip
    assert out.exit_code == 2 and "--never-true has none" in out.output

    out = runner.invoke(main, ["forget", "--user", user_id, "0" * 32])
    assert out.exit_code == 1 and "NotFoundError" in out.output


def test_forget_with_tenant_names_the_api_user(memory: Memory) -> None:
    fact = memory.remember("Ida likes rye bread.", user_id="clit:ida", observed_at=DAY).added[0]
    try:
        runner = CliRunner()
        out = runner.invoke(main, ["forget", "--tenant", "clit", "--user", "ida", fact])
        assert out.exit_code == 0, out.output
        assert memory.get(fact, user_id="clit:ida").close_reason == "retraction"
        out = runner.invoke(main, ["restore", "--tenant", "clit", "--user", "ida", fact])
        assert out.exit_code == 0, out.output
        assert memory.get(fact, user_id="clit:ida").is_open
    finally:
        memory.erase_user("clit:ida")
