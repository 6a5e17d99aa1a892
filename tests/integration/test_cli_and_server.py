"""The CLI against the real Neo4j, and the local server's promises (Browser, auth)."""

from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

from hmem import Config, Memory
from hmem.cli import main


def test_demo_then_facts_history_export_erase(memory: Memory) -> None:
    runner = CliRunner()
    user = "cli-demo-user"
    try:
        out = runner.invoke(main, ["demo", "--user", user])
        assert out.exit_code == 0, out.output
        assert "Maya moved from London to Paris in March 2026." in out.output
        assert "Before: Maya lives in London. (true until 2026-03-01" in out.output

        out = runner.invoke(
            main, ["facts", "--user", user, "--as-of-event", "2026-02-28T00:00:00Z"]
        )
        assert out.exit_code == 0
        assert "Maya lives in London." in out.output
        assert "Paris" not in out.output

        out = runner.invoke(main, ["facts", "--user", user, "--json"])
        rows = json.loads(out.output)
        assert len(rows) == 5
        paris = next(r["id"] for r in rows if "Paris" in r["text"])

        out = runner.invoke(main, ["history", "--user", user, paris])
        assert out.exit_code == 0
        assert out.output.splitlines()[0].startswith("before")
        assert "Maya lives in London." in out.output
        assert "contradiction" in out.output

        out = runner.invoke(
            main,
            [
                "remember",
                "--user",
                user,
                "--supersedes",
                paris,
                "--observed-at",
                "2026-09-01T10:00:00+02:00",
                "Maya moved from Paris to Lyon in September 2026.",
            ],
        )
        assert out.exit_code == 0
        assert json.loads(out.output)["superseded"] == [paris]

        out = runner.invoke(main, ["facts", "--user", user, "--as-of", "2026-01-01"])
        assert out.exit_code != 0
        assert "no timezone" in out.output

        out = runner.invoke(main, ["history", "--user", user, "no-such-fact"])
        assert out.exit_code == 1
        assert "NotFoundError" in out.output

        out = runner.invoke(main, ["export", "--user", user])
        assert json.loads(out.output)["user_id"] == user

        out = runner.invoke(main, ["erase", "--user", user, "--yes"])
        assert out.exit_code == 0
        assert json.loads(out.stdout)["erased"]["facts"] == 8
        assert "db.tx_log.rotation.retention_policy=keep_none" in out.stderr  # for operators
    finally:
        memory.erase_user(user)


def test_browser_is_served_and_auth_is_on(config: Config) -> None:
    page = httpx.get(f"http://127.0.0.1:{config.neo4j_http_port}/browser/", timeout=60)
    assert page.status_code == 200
    assert "<title>Neo4j Browser</title>" in page.text
    with (
        GraphDatabase.driver(config.neo4j_uri, auth=("neo4j", "wrong-password")) as drv,
        pytest.raises(AuthError),
    ):
        drv.verify_connectivity()


def test_browser_queries_in_cypher_folder_run(memory: Memory, user_id: str) -> None:
    """Each cypher/*.cypher runs as Neo4j Browser would: :param lines, then the query."""
    from pathlib import Path

    from hmem.demo import seed_demo

    seed_demo(memory, user_id)
    folder = Path(__file__).parents[2] / "cypher"
    files = sorted(folder.glob("*.cypher"))
    assert files
    from tests.integration.test_cypher_queries import run  # evaluates :param lines

    for path in files:
        assert run(memory, path.stem, user_id), f"{path.name} returned nothing on the demo graph"
