"""`hmem import graphiti`: a Graphiti graph built with graphiti-core's own model classes
(no LLM) in the test Neo4j, imported, and compared with the source: counts, windows,
supersessions, and as-of answers against graphiti's own date filters."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from hmem import Config, Memory
from hmem.cli import main
from hmem.memory import resolve_password

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
graphiti_core = pytest.importorskip("graphiti_core")

from graphiti_core.driver.neo4j_driver import Neo4jDriver  # noqa: E402
from graphiti_core.edges import EntityEdge  # noqa: E402
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode  # noqa: E402
from graphiti_core.search.search_filters import (  # noqa: E402
    ComparisonOperator,
    DateFilter,
    SearchFilters,
    edge_search_filter_query_constructor,
)


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def _driver(config: Config) -> Neo4jDriver:
    # made outside a running loop: inside one, graphiti schedules building its indices
    return Neo4jDriver(config.neo4j_uri, config.neo4j_user, resolve_password(config))


def _graph(group: str) -> tuple[list[EntityNode], list[EpisodicNode], list[EntityEdge]]:
    def node(name: str, *labels: str) -> EntityNode:
        return EntityNode(
            name=name,
            group_id=group,
            labels=list(labels),
            created_at=at(2025, 1, 1),
            name_embedding=[1.0, 0.0, 0.0, 0.0],  # graphiti's save needs a vector
        )

    maya, london, paris = node("Maya", "Person"), node("London", "Place"), node("Paris", "Place")
    acme, lonely = node("Acme"), node("Nobody Mentioned", "Person")
    jan = EpisodicNode(
        name="session 1",
        group_id=group,
        source=EpisodeType.message,
        source_description="chat",
        content="user: I live in London. My password is hunter2",
        valid_at=at(2025, 1, 14, 10),
    )
    mar = EpisodicNode(
        name="session 2",
        group_id=group,
        source=EpisodeType.message,
        source_description="chat",
        content="user: I moved to Paris on March 1st.",
        valid_at=at(2026, 3, 5, 8),
    )

    def edge(src: EntityNode, dst: EntityNode, name: str, fact: str, **times: Any) -> EntityEdge:
        return EntityEdge(
            group_id=group,
            source_node_uuid=src.uuid,
            target_node_uuid=dst.uuid,
            name=name,
            fact=fact,
            fact_embedding=[0.0, 1.0, 0.0, 0.0],
            **times,
        )

    london_edge = edge(
        maya,
        london,
        "LIVES_IN",
        "Maya lives in London.",
        valid_at=at(2025, 1, 14),
        invalid_at=at(2026, 3, 1),
        created_at=at(2025, 1, 14, 10),
        expired_at=at(2026, 3, 5, 9),
        episodes=[jan.uuid],
    )
    paris_edge = edge(
        maya,
        paris,
        "LIVES_IN",
        "Maya moved from London to Paris on 1 March 2026.",
        valid_at=at(2026, 3, 1),
        created_at=at(2026, 3, 5, 8),
        episodes=[mar.uuid],
    )
    job = edge(
        maya,
        acme,
        "WORKS_AT",
        "Maya works at Acme.",
        valid_at=at(2024, 6, 1),
        invalid_at=at(2025, 12, 31),
        created_at=at(2025, 2, 1),
        expired_at=at(2026, 1, 10),
    )
    trip = edge(
        maya,
        paris,
        "VISITED",
        "Maya visited Paris for a week.",
        valid_at=at(2025, 5, 1),
        invalid_at=at(2025, 5, 8),
        created_at=at(2025, 6, 1),
    )
    undated = edge(maya, maya, "LIKES", "Maya likes rainy days.", created_at=at(2025, 3, 3))
    return (
        [maya, london, paris, acme, lonely],
        [jan, mar],
        [london_edge, paris_edge, job, trip, undated],
    )


@pytest.fixture
def group(config: Config) -> Iterator[str]:
    name = f"test-graphiti-{uuid.uuid4().hex[:10]}"
    yield name

    driver = _driver(config)

    async def clear() -> None:
        try:
            await driver.execute_query("MATCH (n {group_id: $g}) DETACH DELETE n", g=name)
        finally:
            await driver.close()

    asyncio.run(clear())


def _save(config: Config, group: str) -> tuple[list[Any], list[Any], list[Any]]:
    nodes, episodes, edges = _graph(group)

    driver = _driver(config)

    async def save() -> None:
        try:
            for item in [*nodes, *episodes, *edges]:
                await item.save(driver)
        finally:
            await driver.close()

    asyncio.run(save())
    return nodes, episodes, edges


def _believed_true_at(edges: list[EntityEdge], t: datetime) -> set[str]:
    """What was believed at ``t`` to be true at ``t``. graphiti's own filters answer this
    with today's ``invalid_at``, also when the invalidation was learned after ``t``
    (graphiti sets ``invalid_at`` and ``expired_at`` together); hmem shows a fact as it
    was believed then, so an end learned after ``t`` is not applied."""
    return {
        e.uuid
        for e in edges
        if e.valid_at is not None
        and e.valid_at <= t
        and e.created_at <= t
        and (e.expired_at is None or e.expired_at > t)
        and (e.invalid_at is None or e.invalid_at > t or e.expired_at is not None)
    }


def _graphiti_at(
    config: Config, group: str, world: datetime | None, belief: datetime | None
) -> set[str]:
    """The edges graphiti's own date filters select at these instants."""
    lte, gt = ComparisonOperator.less_than_equal, ComparisonOperator.greater_than
    is_null = ComparisonOperator.is_null
    filters = SearchFilters()
    if world is not None:
        filters.valid_at = [[DateFilter(date=world, comparison_operator=lte)]]
        filters.invalid_at = [
            [DateFilter(date=world, comparison_operator=gt)],
            [DateFilter(comparison_operator=is_null)],
        ]
    if belief is not None:
        filters.created_at = [[DateFilter(date=belief, comparison_operator=lte)]]
        filters.expired_at = [
            [DateFilter(date=belief, comparison_operator=gt)],
            [DateFilter(comparison_operator=is_null)],
        ]
    where, params = edge_search_filter_query_constructor(filters, Neo4jDriver.provider)
    query = (
        "MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity) WHERE e.group_id = $group_id"
        + "".join(f" AND {w}" for w in where)
        + " RETURN e.uuid AS uuid"
    )

    driver = _driver(config)

    async def run() -> set[str]:
        try:
            records, _, _ = await driver.execute_query(query, group_id=group, **params)
            return {r["uuid"] for r in records}
        finally:
            await driver.close()

    return asyncio.run(run())


def test_import_graphiti_keeps_counts_windows_and_as_of_answers(
    config: Config, memory: Memory, user_id: str, group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    nodes, episodes, edges = _save(config, group)
    london, paris, job, trip, undated = edges
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "none")
    runner = CliRunner()
    out = runner.invoke(
        main, ["import", "graphiti", "--no-tenant", "--group-id", group, "--user", user_id]
    )
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output.splitlines()[-1])
    assert {k: summary["source"][k] for k in ("entity_nodes", "entity_edges", "episodes")} == {
        "entity_nodes": 5,
        "entity_edges": 5,
        "episodes": 2,
    }
    assert summary["source"]["expired_edges"] == 2
    assert (summary["added"], summary["added_closed"], summary["closed"]) == (5, 2, 0)
    assert summary["supersedes_added"] == 1
    assert summary["dates"] == {"valid_at": 4, "reference_time": 0, "created_at": 1}
    assert (summary["skipped"], summary["skipped_edges"]) == ({}, [])

    dump = memory.export(user_id)
    assert len(dump.facts) == len(edges)
    assert len(dump.entities) == len(nodes)
    assert {e.name: e.type for e in dump.entities} == {
        "Maya": "person",
        "London": "place",
        "Paris": "place",
        "Acme": "thing",
        "Nobody Mentioned": "person",
    }
    assert {e.id for e in dump.episodes} == {e.uuid for e in episodes}
    [jan_episode] = [e for e in dump.episodes if e.id == episodes[0].uuid]
    assert "hunter2" not in jan_episode.text  # redacted like every stored episode
    assert [(s.new_id, s.old_id, s.reason.value) for s in dump.supersessions] == [
        (paris.uuid, london.uuid, "contradiction")
    ]
    facts = {f.id: f for f in dump.facts}
    for edge in edges:
        fact = facts[edge.uuid]
        assert fact.text == edge.fact
        assert fact.valid_from == (edge.valid_at or edge.created_at)
        assert fact.valid_to == edge.invalid_at
        assert fact.known_from == edge.created_at
        assert fact.known_to == edge.expired_at
    assert facts[london.uuid].close_reason == "contradiction"
    # expired with an invalid_at and no successor: it ended then, still believed with
    # that end (docs/time.md); one without invalid_at would be a retraction
    assert facts[job.uuid].close_reason == "ended"
    assert facts[trip.uuid].close_reason is None  # ended in the world, still believed
    assert facts[undated.uuid].valid_from == undated.created_at  # no valid_at: from created
    assert set(facts[london.uuid].entities) == {"Maya", "London"}
    history = memory.history(london.uuid, user_id=user_id)
    assert [s.fact.id for s in history.successors] == [paris.uuid]

    # as-of answers equal graphiti's own on every instant where something changes
    stamps = {
        t
        for e in edges
        for t in (e.valid_at, e.invalid_at, e.created_at, e.expired_at)
        if t is not None
    }
    instants = sorted({t + d for t in stamps for d in (-timedelta(seconds=1), timedelta(0))})
    dated = {e.uuid for e in edges if e.valid_at is not None}  # graphiti: no valid_at, no answer
    for t in instants:
        ours_world = {f.id for f in memory.facts(user_id=user_id, as_of_event=t, limit=1000)}
        assert ours_world & dated == _graphiti_at(config, group, t, None), t
        # as_of alone is "true then, as believed then" (docs/time.md: the world time is
        # the belief time), not graphiti's "every edge not expired then": an edge that
        # ended in the world is still believed, with its end
        ours_belief = {f.id for f in memory.facts(user_id=user_id, as_of=t, limit=1000)}
        both = {f.id for f in memory.facts(user_id=user_id, as_of=t, as_of_event=t, limit=1000)}
        assert ours_belief == both, t
        assert both & dated == _believed_true_at(edges, t), t

    again = runner.invoke(main, ["import", "--help"])
    assert "graphiti" in again.output
    same = runner.invoke(
        main, ["import", "graphiti", "--no-tenant", "--group-id", group, "--user", user_id]
    )
    assert json.loads(same.stdout)["unchanged"]  # the group's watermark has not moved
    rerun = runner.invoke(
        main,
        ["import", "graphiti", "--no-tenant", "--group-id", group, "--user", user_id, "--full"],
    )
    assert rerun.exit_code == 0, rerun.output
    second = json.loads(rerun.output.splitlines()[-1])
    assert (second["added"], second["closed"], second["left_alone"]) == (0, 0, 5)
    assert (second["supersedes_found"], second["supersedes_added"]) == (1, 0)
    assert second["since"] is not None  # the first run's watermark
    assert memory.export(user_id).model_dump(exclude={"exported_at"}) == dump.model_dump(
        exclude={"exported_at"}
    )


def test_import_of_the_benchmarks_graphiti_graph_equals_the_source(
    config: Config, memory: Memory, user_id: str, group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph `hmem bench run` builds for graphiti (LoCoMo items as EntityEdges between
    the speakers, saved with graphiti's own bulk save), imported: the same facts, windows
    and entities."""
    import types

    import numpy as np

    from hmem_bench import graphiti_side
    from hmem_bench.data import load_locomo
    from hmem_bench.locomo import LocomoCorpus, build_items

    data = Path(__file__).resolve().parents[3] / "shared/data/locomo/locomo_dev.jsonl"
    if not data.is_file():
        pytest.skip(f"no LoCoMo dev data at {data}")
    conv = load_locomo(data)[0]
    items = build_items(conv, "observations")
    vectors = np.random.default_rng(0).standard_normal((len(items), 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    corpus = LocomoCorpus(conv, "observations", items, vectors, vectors[:1])
    unused = types.SimpleNamespace(api_key="unused", base_url="http://127.0.0.1:9/v1")
    graphiti = graphiti_side._graphiti(  # no model is called: edges are saved as given
        config.neo4j_uri, config.neo4j_user, resolve_password(config), unused
    )
    speakers = {name: [1.0] + [0.0] * 383 for name in conv.speakers}

    async def load() -> list[Any]:
        try:
            await graphiti_side._load(graphiti, corpus, group, speakers)
            return list(await EntityEdge.get_by_group_ids(graphiti.driver, [group]))
        finally:
            await graphiti.close()

    edges = asyncio.run(load())
    assert len(edges) == len(items)
    monkeypatch.setenv("HMEM_EMBED_PROVIDER", "none")
    out = CliRunner().invoke(
        main, ["import", "graphiti", "--no-tenant", "--group-id", group, "--user", user_id]
    )
    assert out.exit_code == 0, out.output
    summary = json.loads(out.output.splitlines()[-1])
    assert summary["source"]["entity_edges"] == summary["added"] == len(edges)
    dump = memory.export(user_id)
    assert {e.name for e in dump.entities} == set(conv.speakers)
    facts = {f.id: f for f in dump.facts}
    assert set(facts) == {e.uuid for e in edges}
    for edge in edges:
        fact = facts[edge.uuid]
        assert fact.text == " ".join(edge.fact.split())
        assert (fact.valid_from, fact.valid_to) == (edge.valid_at, edge.invalid_at)
        assert (fact.known_from, fact.known_to) == (edge.created_at, edge.expired_at)
