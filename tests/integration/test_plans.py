"""Every catalog statement plans on this server, and its key lookups use their key's
index whatever the store's statistics say (``USING INDEX``, see test_catalog.py).

``EXPLAIN`` plans without running: each text this server can run (the plain one; the
native one when hmem's plugin is installed; the Cypher 25 ones on Neo4j 2026.x).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from neo4j import Driver

from hmem import Config
from hmem.graph import catalog
from hmem.graph._driver import run_statement
from hmem.graph.schema import filtered_search, server_version
from hmem.graph.search import TOPK_PROCEDURE

_HINT = re.compile(r"USING INDEX (\w+):(\w+)\(([^)]*)\)")


def _seeks(plan: Any) -> set[str]:
    """'var:Label(props)' of every index seek in the plan."""
    found: set[str] = set()
    if "IndexSeek" in plan["operatorType"]:
        details = str(plan.get("args", {}).get("Details", ""))
        found |= {m.group(0) for m in re.finditer(r"\w+:\w+\([\w, ]+\)", details)}
    for child in plan.get("children", []):
        found |= _seeks(child)
    return found


@pytest.fixture(scope="module")
def texts(config: Config, driver: Driver) -> list[tuple[str, str]]:
    [row] = run_statement(
        driver, config.neo4j_database, "schema_procedure_exists", procedure=TOPK_PROCEDURE
    )
    plugin = row["present"]
    on_2026 = filtered_search(server_version(driver, config.neo4j_database))
    out = []
    for name, stmt in sorted(catalog.load().items()):
        variants = [stmt.text, stmt.native if plugin else None]
        if on_2026:
            variants += [stmt.cypher25, stmt.cypher25_native if plugin else None]
        out += [(name, text) for text in dict.fromkeys(variants) if text]
    return out


def test_every_statement_plans_with_its_index_hints(
    config: Config, driver: Driver, texts: list[tuple[str, str]]
) -> None:
    hinted = 0
    with driver.session(database=config.neo4j_database) as session:
        for name, text in texts:
            stmt = catalog.statement(name)
            params = stmt.bind(
                {p: "x" if p in ("user_id", "user_ref") else None for p in stmt.params}
            )
            plan = session.run("EXPLAIN " + text, params).consume().plan
            assert plan is not None, name
            seeks = _seeks(plan)
            for var, label, props in _HINT.findall(text):
                assert f"{var}:{label}({props})" in seeks, f"{name}: {var} not found by {props}"
                hinted += 1
    assert hinted > 20  # the hints of write_apply, write_check, fact_get, ...
