"""`hmem import graphiti` as a sync while graphiti keeps running: a rerun closes with
graphiti's times what graphiti expired since, and its numbers are what changed in hmem
(counted here in Cypher); every failure of the source is one line and writes nothing.
The Graphiti graph is written with graphiti-core's own models and save methods (no LLM)
in the test Neo4j, each test in a group of its own."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from click.testing import CliRunner, Result
from neo4j import Driver

from hmem import Config, Memory
from hmem.cli import main
from hmem.importers.graphiti import import_graphiti
from hmem.memory import resolve_password

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
graphiti_core = pytest.importorskip("graphiti_core")

from graphiti_core.driver.neo4j_driver import Neo4jDriver  # noqa: E402
from graphiti_core.edges import EntityEdge  # noqa: E402
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode  # noqa: E402

PREFIX = "test-graphiti-sync-"


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def _save(config: Config, *items: Any) -> None:
    """graphiti-core's own save of each node and edge (MERGE by uuid, so saving an edge
    again is how graphiti records its invalidation)."""
    driver = Neo4jDriver(config.neo4j_uri, config.neo4j_user, resolve_password(config))

    async def save() -> None:
        try:
            for item in items:
                await item.save(driver)
        finally:
            await driver.close()

    asyncio.run(save())


def _node(group: str, name: str, *labels: str) -> EntityNode:
    return EntityNode(
        name=name,
        group_id=group,
        labels=list(labels),
        created_at=at(2025, 1, 1),
        name_embedding=[1.0, 0.0, 0.0, 0.0],  # graphiti's save needs a vector
    )


def _edge(group: str, src: EntityNode, dst: EntityNode, name: str, fact: str, **kw: Any) -> Any:
    return EntityEdge(
        group_id=group,
        source_node_uuid=src.uuid,
        target_node_uuid=dst.uuid,
        name=name,
        fact=fact,
        fact_embedding=[0.0, 1.0, 0.0, 0.0],
        **{"created_at": at(2025, 2, 1), **kw},
    )


def _cypher(driver: Driver, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(query, params)
    return [r.data() for r in records]


def _hmem_counts(driver: Driver, user_id: str) -> dict[str, int]:
    """What hmem stores for the user: facts, closed facts, SUPERSEDES edges, nodes."""
    [row] = _cypher(
        driver,
        "RETURN COUNT { MATCH (f:Fact {user_id: $u}) } AS facts, "
        "COUNT { MATCH (f:Fact {user_id: $u}) WHERE f.known_to IS NOT NULL } AS closed, "
        "COUNT { MATCH (:Fact {user_id: $u})-[:SUPERSEDES]->(:Fact {user_id: $u}) } AS links, "
        "COUNT { MATCH (n {user_id: $u}) } AS nodes",
        u=user_id,
    )
    return dict(row)


def _import(*args: str, env: dict[str, str | None] | None = None) -> Result:
    # the shared test store may hold other tests' API keys: these users have no tenant
    return CliRunner().invoke(main, ["import", "graphiti", "--no-tenant", *args], env=env)


def _summary(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    summary: dict[str, Any] = json.loads(result.output.splitlines()[-1])
    return summary


@pytest.fixture
def group(config: Config, driver: Driver, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "none")
    name = f"{PREFIX}{uuid.uuid4().hex[:10]}"
    yield name
    _cypher(driver, "MATCH (n {group_id: $g}) DETACH DELETE n", g=name)


def test_a_rerun_closes_what_graphiti_invalidated_with_its_times(
    config: Config, memory: Memory, driver: Driver, user_id: str, group: str
) -> None:
    maya, london, paris = (
        _node(group, "Maya", "Person"),
        _node(group, "London", "Place"),
        _node(group, "Paris", "Place"),
    )
    acme_thing, acme = _node(group, "Acme"), _node(group, "Acme", "Organization")
    jan = EpisodicNode(
        name="session 1",
        group_id=group,
        source=EpisodeType.message,
        source_description="chat",
        content="user: I live in London and work at Acme.",
        valid_at=at(2025, 1, 14, 10),
        created_at=at(2026, 6, 1),  # a backfill: ingested long after it was said
    )
    lives = _edge(
        group,
        maya,
        london,
        "LIVES_IN",
        "Maya lives in London.",
        valid_at=at(2025, 1, 14),
        created_at=at(2026, 6, 1),
        episodes=[jan.uuid],
    )
    job = _edge(
        group,
        maya,
        acme_thing,
        "WORKS_AT",
        "Maya works at Acme.",
        created_at=at(2026, 6, 1),
        episodes=[jan.uuid],  # no valid_at: dated by the episode's reference time
    )
    secret = _edge(
        group,
        maya,
        maya,
        "HAS",
        "Maya's password is hunter2",
        valid_at=at(2025, 1, 14),
        created_at=at(2026, 6, 1),
    )
    _save(config, maya, london, paris, acme_thing, acme, jan, lives, job, secret)

    first = _summary(_import("--group-id", group, "--user", user_id, "--verbose"))
    assert (first["added"], first["closed"], first["left_alone"]) == (2, 0, 0)
    assert first["dates"] == {"valid_at": 1, "reference_time": 1, "created_at": 0}
    assert first["skipped"] == {"refused": 1}
    assert first["skipped_edges"] == [{"uuid": secret.uuid, "reason": "refused"}]
    assert {e.name: e.type for e in memory.export(user_id).entities}["Acme"] == "organization"
    assert memory.get(job.uuid, user_id=user_id).valid_from == at(2025, 1, 14, 10)

    # graphiti learns that Maya moved: it invalidates the London edge (same uuid, saved
    # again with invalid_at and expired_at), adds the Paris edge and one more fact
    lives.invalid_at, lives.expired_at = at(2026, 3, 1), at(2026, 7, 2, 9)
    moved = _edge(
        group,
        maya,
        paris,
        "LIVES_IN",
        "Maya moved from London to Paris on 1 March 2026.",
        valid_at=at(2026, 3, 1),
        created_at=at(2026, 7, 2, 8),
    )
    chess = _edge(
        group,
        maya,
        maya,
        "PLAYS",
        "Maya plays chess.",
        valid_at=at(2026, 7, 1),
        created_at=at(2026, 7, 2, 8),
    )
    _save(config, lives, moved, chess)

    before = _hmem_counts(driver, user_id)
    second = _summary(_import("--group-id", group, "--user", user_id))
    after = _hmem_counts(driver, user_id)
    # the summary's numbers are what changed in hmem
    assert second["added"] == after["facts"] - before["facts"] == 2
    assert second["closed"] == after["closed"] - before["closed"] - second["added_closed"] == 1
    assert second["supersedes_added"] == after["links"] - before["links"] == 1
    assert second["left_alone"] == before["facts"] - second["closed"] == 1
    assert second["since"] is not None

    # exactly one current fact per slot, the closed one with graphiti's times
    slots = _cypher(
        driver,
        "MATCH (f:Fact {user_id: $u}) WHERE f.known_to IS NULL "
        "RETURN f.source AS slot, count(*) AS current ORDER BY slot",
        u=user_id,
    )
    assert {r["slot"]: r["current"] for r in slots} == {
        "graphiti:LIVES_IN": 1,
        "graphiti:WORKS_AT": 1,
        "graphiti:PLAYS": 1,
    }
    old = memory.get(lives.uuid, user_id=user_id)
    assert (old.valid_to, old.known_to, old.close_reason) == (
        at(2026, 3, 1),
        at(2026, 7, 2, 9),
        "contradiction",
    )
    history = memory.history(lives.uuid, user_id=user_id)
    assert [s.fact.id for s in history.successors] == [moved.uuid]  # London → Paris
    now_and_then = memory.facts(user_id=user_id, as_of=at(2026, 7, 1), limit=100)
    assert lives.uuid in {f.id for f in now_and_then}  # before graphiti expired it

    # a fact erased by hand in hmem stays erased; an unchanged source adds nothing
    memory.erase(chess.uuid, user_id=user_id)
    assert _summary(_import("--group-id", group, "--user", user_id))["unchanged"]
    third = _summary(_import("--group-id", group, "--user", user_id, "--full"))
    assert (third["added"], third["closed"], third["erased_in_hmem"]) == (0, 0, 1)
    assert third["left_alone"] == 3
    syncs = [e for e in memory.audit(user_id=user_id) if e["op"] == "import_sync"]
    assert len(syncs) == 3  # an unchanged run records nothing
    assert syncs[0]["detail"]["group_id"] == group
    assert syncs[0]["detail"]["state"]["expired_edges"] == 1


def test_follow_reads_only_when_the_watermark_moved(
    config: Config, memory: Memory, user_id: str, group: str
) -> None:
    maya = _node(group, "Maya", "Person")
    tea = _edge(group, maya, maya, "LIKES", "Maya likes tea.", valid_at=at(2025, 2, 1))
    _save(config, maya, tea)
    assert _summary(_import("--group-id", group, "--user", user_id))["added"] == 1
    # a first run (nothing new), then one poll (--runs 1): unchanged, so no line
    out = _import(
        "--group-id", group, "--user", user_id, "--follow", "--interval", "0", "--runs", "1"
    )
    assert out.exit_code == 0, out.output
    assert [json.loads(line)["added"] for line in out.stdout.splitlines()] == [0]
    unchanged = import_graphiti(memory, group, user_id=user_id, if_changed=True)
    assert unchanged.unchanged
    coffee = _edge(group, maya, maya, "LIKES", "Maya likes coffee.", valid_at=at(2025, 3, 1))
    _save(config, coffee)
    moved = import_graphiti(memory, group, user_id=user_id, if_changed=True)
    assert (moved.unchanged, moved.added, moved.left_alone) == (False, 1, 1)


def test_schema_is_applied_before_writing(
    config: Config, memory: Memory, driver: Driver, user_id: str, group: str
) -> None:
    maya = _node(group, "Maya", "Person")
    tea = _edge(group, maya, maya, "LIKES", "Maya likes green tea.", valid_at=at(2025, 2, 1))
    _save(config, maya, tea)
    _cypher(driver, "DROP INDEX fact_text_user IF EXISTS")
    _summary(_import("--group-id", group, "--user", user_id))
    assert _cypher(driver, "SHOW INDEXES YIELD name WHERE name = 'fact_text_user' RETURN name")
    hits = memory.search("green tea", user_id=user_id)
    assert [h.fact.id for h in hits.hits] == [tea.uuid]


def _one_line_error(result: Result, *expected: str) -> str:
    assert result.exit_code != 0
    assert "Traceback" not in result.output and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: "), line
    for text in expected:
        assert text in line, line
    return line


def test_each_source_failure_is_one_line_and_writes_nothing(
    config: Config, driver: Driver, user_id: str, group: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    maya = _node(group, "Maya", "Person")
    _save(config, maya, _edge(group, maya, maya, "LIKES", "Maya likes tea."))
    password = resolve_password(config)
    source = ["--uri", config.neo4j_uri]
    caplog.clear()  # graphiti's own logs of the saves above

    unknown = _import("--group-id", f"{PREFIX}nope", "--user", user_id)
    _one_line_error(unknown, "NotFoundError", f"no Graphiti group '{PREFIX}nope'", repr(group))
    wrong_scheme = _import("--group-id", group, "--user", user_id, "--uri", "http://127.0.0.1:7474")
    _one_line_error(wrong_scheme, "ConfigError", "bolt://", "not http://")
    no_password = _import(
        "--group-id", group, "--user", user_id, *source, env={"GRAPHITI_NEO4J_PASSWORD": None}
    )
    _one_line_error(no_password, "ConfigError", "$GRAPHITI_NEO4J_PASSWORD")
    unreachable = _import(
        "--group-id",
        group,
        "--user",
        user_id,
        "--uri",
        "bolt://127.0.0.1:9",
        env={"GRAPHITI_NEO4J_PASSWORD": password},
    )
    _one_line_error(unreachable, "StoreUnavailableError", "cannot reach Graphiti's Neo4j")
    bad = _import(
        "--group-id", group, "--user", user_id, *source, env={"GRAPHITI_NEO4J_PASSWORD": "wrong"}
    )
    _one_line_error(bad, "ConfigError", "refused the credentials")
    assert _hmem_counts(driver, user_id)["nodes"] == 0  # no stray empty user

    # without --uri the source is hmem's own server, with hmem's own credentials: the
    # source's password is never sent there
    own = _import("--group-id", group, "--user", user_id, env={"GRAPHITI_NEO4J_PASSWORD": "wrong"})
    assert _summary(own)["added"] == 1
    # with its own password, the same server as a separate source
    separate = _import(
        "--group-id", group, "--user", user_id, *source, env={"GRAPHITI_NEO4J_PASSWORD": password}
    )
    assert _summary(separate)["added"] == 0
    noisy = ("neo4j.notifications", "graphiti_core.driver")  # ~1.5 KB a page unsilenced
    assert not [r for r in caplog.records if r.name.startswith(noisy)]


def test_a_database_without_graphiti_data_is_named(
    config: Config, driver: Driver, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "none")
    # this server holds Graphiti data only while a test of this file runs
    stale = _cypher(
        driver,
        "MATCH (n:Entity|Episodic) WHERE n.group_id IS NOT NULL RETURN DISTINCT n.group_id AS g",
    )
    assert not stale, f"Graphiti groups left on the test server: {stale}"
    result = _import("--group-id", "anything", "--user", user_id)
    _one_line_error(result, "NotFoundError", "has no Graphiti data")
    assert _hmem_counts(driver, user_id)["nodes"] == 0


def test_a_close_reason_does_not_depend_on_when_the_sync_ran(
    config: Config, memory: Memory, driver: Driver, user_id: str, group: str
) -> None:
    """London expired before its successor existed: the first sync closes it with no
    successor (ended at its invalid_at, still believed with that end: docs/time.md);
    once the Paris edge is there, the next sync links it and
    London reads 'contradiction', as one sync of the final graph says."""
    maya, london, paris = (
        _node(group, "Maya", "Person"),
        _node(group, "London", "Place"),
        _node(group, "Paris", "Place"),
    )
    lives = _edge(
        group, maya, london, "LIVES_IN", "Maya lives in London.",
        valid_at=at(2025, 1, 14), created_at=at(2025, 1, 14),
    )  # fmt: skip
    _save(config, maya, london, paris, lives)
    _summary(_import("--group-id", group, "--user", user_id))
    lives.invalid_at, lives.expired_at = at(2026, 3, 1), at(2026, 3, 2, 9)
    _save(config, lives)
    _summary(_import("--group-id", group, "--user", user_id))
    assert memory.get(lives.uuid, user_id=user_id).close_reason == "ended"

    moved = _edge(
        group, maya, paris, "LIVES_IN", "Maya moved from London to Paris on 1 March 2026.",
        valid_at=at(2026, 3, 1), created_at=at(2026, 3, 2, 8),
    )  # fmt: skip
    _save(config, moved)
    third = _summary(_import("--group-id", group, "--user", user_id))
    assert third["supersedes_added"] == 1
    old = memory.get(lives.uuid, user_id=user_id)
    assert old.close_reason == "contradiction"
    assert [s.link.reason for s in memory.history(lives.uuid, user_id=user_id).successors] == [
        "contradiction"
    ]
