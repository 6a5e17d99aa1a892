"""The exploration queries of ``cypher/`` run as Neo4j Browser runs them, on the demo.

Browser evaluates each ``:param name => expression`` on the server, then runs the
query with those parameters; this test does the same (with the test's own user id in
place of ``maya``) and checks each query's answer on the Maya demo graph.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hmem import Memory
from hmem.demo import DemoIds, seed_demo

FOLDER = Path(__file__).parents[2] / "cypher"
_PARAM = re.compile(r"^:param\s+(\w+)\s*=>\s*(.+?);?\s*$")


def parse(path: Path) -> tuple[dict[str, str], str]:
    """``(:param expressions by name, the query)`` of one Browser file."""
    params: dict[str, str] = {}
    body: list[str] = []
    for line in path.read_text().splitlines():
        if line.lstrip().startswith("//"):
            continue
        match = _PARAM.match(line.strip())
        if match:
            params[match.group(1)] = match.group(2)
        else:
            body.append(line)
    return params, "\n".join(body).strip().rstrip(";")


def run(memory: Memory, name: str, user_id: str, **override: Any) -> list[dict[str, Any]]:
    driver = memory.store._driver
    params, query = parse(FOLDER / f"{name}.cypher")
    assert "user_id" in params, f"{name}.cypher has no :param user_id line"
    values: dict[str, Any] = {}
    for key, expression in params.items():
        records, _, _ = driver.execute_query(f"RETURN {expression} AS value")
        values[key] = records[0]["value"]
    values.update(user_id=user_id, **override)
    records, _, _ = driver.execute_query(query, values)
    return [r.data() for r in records]


@pytest.fixture
def demo(memory: Memory, user_id: str) -> DemoIds:
    return seed_demo(memory, user_id)


def test_every_file_is_a_browser_query_with_params() -> None:
    files = sorted(FOLDER.glob("*.cypher"))
    assert len(files) >= 9
    for path in files:
        params, query = parse(path)
        assert path.read_text().startswith("//"), f"{path.name}: say what it answers first"
        assert "user_id" in params and "$user_id" in query, path.name
        assert set(re.findall(r"\$(\w+)", query)) <= set(params), path.name


def test_where_lived_before(memory: Memory, user_id: str, demo: DemoIds) -> None:
    [row] = run(memory, "where_lived_before", user_id)
    assert row["before"] == "Maya lives in London."
    assert row["places"] == ["London"] and row["reason"] == "contradiction"
    assert row["replaced_by"] == "Maya moved from London to Paris in March 2026."
    assert row["true_until"].to_native() == datetime(2026, 3, 1, 9, tzinfo=UTC)


def test_timeline(memory: Memory, user_id: str, demo: DemoIds) -> None:
    rows = run(memory, "timeline", user_id)
    assert rows[0]["text"] == "Maya lives in London."  # from 2019
    assert len(rows) == 7
    states = {r["text"]: r["state"] for r in rows}
    assert states["Maya lives in London."] == "closed: contradiction"
    assert states["Maya is vegetarian."] == "believed"


def test_believed_and_true_on_a_date(memory: Memory, user_id: str, demo: DemoIds) -> None:
    believed = {r["believed"] for r in run(memory, "believed_on_date", user_id)}
    assert "Maya lives in London." in believed  # on 1 March we had not heard of Paris yet
    assert not any("Paris" in t for t in believed)
    later = {
        r["believed"]
        for r in run(memory, "believed_on_date", user_id, as_of=datetime(2026, 3, 3, tzinfo=UTC))
    }
    assert "Maya moved from London to Paris in March 2026." in later
    assert "Maya lives in London." not in later

    true_then = {r["true_then"] for r in run(memory, "true_on_date", user_id)}
    assert "Maya lives in London." in true_then and len(true_then) == 4
    june = {
        r["true_then"]
        for r in run(memory, "true_on_date", user_id, as_of_event=datetime(2026, 6, 1, tzinfo=UTC))
    }
    assert "Maya lives in London." not in june
    assert "Maya is training for the Berlin Marathon in September 2026." not in june


def test_supersession_chains(memory: Memory, user_id: str, demo: DemoIds) -> None:
    rows = run(memory, "supersession_chains", user_id)
    chains = {tuple(r["newest_to_oldest"]) for r in rows}
    assert chains == {
        ("Maya moved from London to Paris in March 2026.", "Maya lives in London."),
        (
            "Maya injured her knee in May 2026 and is no longer training for the Berlin Marathon.",
            "Maya is training for the Berlin Marathon in September 2026.",
        ),
    }
    # a third link makes one chain of three, not two chains
    memory.remember(
        "Maya moved from Paris to Lyon in September 2026.",
        user_id=user_id,
        observed_at=datetime(2026, 9, 2, tzinfo=UTC),
        supersedes=[demo.paris],
    )
    longest = max(len(r["newest_to_oldest"]) for r in run(memory, "supersession_chains", user_id))
    assert longest == 3 and len(run(memory, "supersession_chains", user_id)) == 2


def test_entity_neighbourhood(memory: Memory, user_id: str, demo: DemoIds) -> None:
    rows = run(memory, "entity_neighbourhood", user_id)
    facts = {r["f"]["text"] for r in rows}
    assert facts == {"Maya lives in London.", "Maya moved from London to Paris in March 2026."}
    assert {r["other"]["name"] for r in rows if r["other"]} == {"Maya", "Paris"}
    marathon = run(memory, "entity_neighbourhood", user_id, entity="the marathon")  # an alias
    assert len({r["f"]["id"] for r in marathon}) == 2


def test_open_conflicts(memory: Memory, user_id: str, demo: DemoIds) -> None:
    [row] = run(memory, "open_conflicts", user_id)
    assert row == {"open_conflicts": 0, "pairs": []}
    memory.store._driver.execute_query(
        "MATCH (a:Fact {user_id: $u, id: $a}), (b:Fact {user_id: $u, id: $b}) "
        "MERGE (a)-[:RELATES {relation: 'conflicts'}]->(b)",
        u=user_id,
        a=demo.vegetarian,
        b=demo.miso,
    )
    [row] = run(memory, "open_conflicts", user_id)
    assert row["open_conflicts"] == 1
    assert {row["pairs"][0]["a_id"], row["pairs"][0]["b_id"]} == {demo.vegetarian, demo.miso}
    memory.close(demo.miso, user_id=user_id)  # resolved: one side no longer stands
    assert run(memory, "open_conflicts", user_id)[0]["open_conflicts"] == 0


def test_audit_trail(memory: Memory, user_id: str, demo: DemoIds) -> None:
    rows = run(memory, "audit_trail", user_id)
    assert len(rows) == 7 and {r["op"] for r in rows} == {"write"}
    assert all("Maya" not in str(r) for r in rows)


def test_user_graph(memory: Memory, user_id: str, demo: DemoIds) -> None:
    rows = run(memory, "user_graph", user_id)
    assert {r["f"]["id"] for r in rows} == {
        demo.vegetarian, demo.peanut, demo.london, demo.marathon, demo.paris, demo.miso, demo.knee
    }  # fmt: skip


def test_style_file_styles_every_label_and_edge() -> None:
    grass = (FOLDER / "style.grass").read_text()
    nodes = ("node.Fact", "node.Entity", "node.Episode", "node.User")
    edges = ("relationship.SUPERSEDES", "relationship.RELATES", "relationship.MENTIONS")
    for selector in nodes + edges:
        assert selector + " {" in grass, selector
    assert 'caption: "{text}"' in grass and 'caption: "{reason}"' in grass
    assert grass.count("{") == grass.count("}")
