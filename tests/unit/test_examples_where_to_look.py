"""Every example under examples/ ends by saying where to look at what it wrote (issue 49
item 9): the user, and through the API the inspector URL of that user; embedded, the CLI
and Cypher that show it (a user stored with no tenant, which the inspector does not show)."""

from __future__ import annotations

import ast
from pathlib import Path

from hmem.demo import where_to_look

ROOT = Path(__file__).parents[2]


def test_through_the_api_the_inspector_url_of_each_user() -> None:
    said = where_to_look(["maya-1a2b3c", "sam-4d5e6f"], api_url="http://127.0.0.1:8861/")
    assert "http://127.0.0.1:8861/inspector/#user=maya-1a2b3c" in said
    assert "http://127.0.0.1:8861/inspector/#user=sam-4d5e6f" in said
    assert "http://127.0.0.1:8861/v1/users/sam-4d5e6f/facts" in said
    assert "of your key's tenant" in said


def test_embedded_the_cli_and_cypher_and_how_to_reach_the_inspector() -> None:
    said = where_to_look(["example-0a1b2c3d"])
    assert ".venv/bin/hmem facts --user example-0a1b2c3d --all" in said
    assert ":param user_id => 'example-0a1b2c3d'; then cypher/facts_table.cypher" in said
    assert "HMEM_API_URL and HMEM_API_KEY" in said


def test_every_example_calls_it_with_the_users_it_wrote() -> None:
    scripts = [p for p in sorted(ROOT.glob("examples/*/*.py")) if "__main__" in p.read_text()]
    assert len(scripts) == 8, scripts
    for path in scripts:
        calls = [
            node
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "where_to_look"
        ]
        assert calls, f"{path} does not say where to look"
        assert any(k.arg == "api_url" for k in calls[0].keywords), path
