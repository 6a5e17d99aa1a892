"""How fast `hmem import graphiti` keeps up with a running graphiti: a group of
``--edges`` entity edges (saved with graphiti-core's own bulk operations, no LLM) is
imported, then graphiti invalidates ``--invalidate`` of them and adds their
replacements, and the sync runs again; then twice with nothing changed (as the command
runs by default, and with ``--full``), and graphiti-core's read of the group alone.
Prints each run's time, its facts/s (facts added + closed per second) and what it
changed in hmem, then removes the group and the user. Run against a local server
(hmem's own Neo4j, or ``--uri`` with ``GRAPHITI_NEO4J_PASSWORD``):

    python -m hmem_bench.graphiti_sync --edges 10000 --invalidate 1000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from hmem.config import Config
from hmem.importers.graphiti import PASSWORD_ENV, import_graphiti
from hmem.importers.graphiti_source import Source, read_group, source_for
from hmem.memory import Memory
from hmem_bench.queries import query

PREFIX = "bench-graphiti-sync-"
_PEOPLE = 500


def _graph(group: str, edges: int) -> tuple[list[Any], list[Any]]:
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    start = datetime(2024, 1, 1, tzinfo=UTC)
    people = [
        EntityNode(name=f"Person {i}", group_id=group, labels=["Person"], name_embedding=[1.0, 0.0])
        for i in range(min(_PEOPLE, edges))
    ]
    places = [
        EntityNode(name=f"City {i}", group_id=group, labels=["Place"], name_embedding=[0.0, 1.0])
        for i in range(edges // len(people) + 1)
    ]
    made = [
        EntityEdge(
            group_id=group,
            source_node_uuid=people[i % len(people)].uuid,
            target_node_uuid=places[i // len(people)].uuid,
            name="LIVES_IN",
            fact=f"Person {i % len(people)} lived in City {i // len(people)} (record {i}).",
            fact_embedding=[0.0, 1.0],
            valid_at=start + timedelta(hours=i),
            created_at=start + timedelta(hours=i, minutes=5),
        )
        for i in range(edges)
    ]
    return [*people, *places], made


def _invalidate(edges: list[Any], count: int) -> list[Any]:
    """What graphiti does on a contradiction: the old edge gets invalid_at (the new
    edge's valid_at) and expired_at (when it learned it); the new edge is saved."""
    from graphiti_core.edges import EntityEdge

    now = datetime.now(UTC)
    replacements = []
    for i, old in enumerate(edges[:count]):
        moved = now - timedelta(days=1, seconds=i)
        old.invalid_at, old.expired_at = moved, now
        replacements.append(
            EntityEdge(
                group_id=old.group_id,
                source_node_uuid=old.source_node_uuid,
                target_node_uuid=old.target_node_uuid,
                name=old.name,
                fact=f"{old.fact[:-1]}, then moved away (record {i}).",
                fact_embedding=[0.0, 1.0],
                valid_at=moved,
                created_at=now - timedelta(seconds=1),
            )
        )
    return [*edges[:count], *replacements]


def _graphiti(source: Source, work: Any) -> None:
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    driver = Neo4jDriver(source.uri, source.user, source.password, database=source.database)

    async def run() -> None:
        try:
            await work(driver)
        finally:
            await driver.close()

    asyncio.run(run())


def _timed(memory: Memory, label: str, group: str, user: str, **options: Any) -> None:
    started = time.perf_counter()
    summary = import_graphiti(memory, group, user_id=user, batch=1000, **options)
    seconds = time.perf_counter() - started
    changed = summary.added + summary.closed
    rate = f"{changed / seconds:,.0f} facts/s" if changed else "-"
    print(
        f"{label:<34} {seconds:7.2f} s  {rate:>14}  added {summary.added:>6,}  "
        f"closed {summary.closed:>5,}  left alone {summary.left_alone:>6,}  "
        f"supersedes added {summary.supersedes_added:>5,}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=10_000)
    parser.add_argument("--invalidate", type=int, default=1_000)
    parser.add_argument("--uri", help="Graphiti's Neo4j (default: hmem's own)")
    parser.add_argument("--embed", action="store_true", help="embed with hmem's embedder")
    args = parser.parse_args()
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    if not args.embed:
        os.environ["HMEM_EMBED_PROVIDER"] = "none"
    config = Config()
    source = source_for(
        config,
        uri=args.uri,
        user=None,
        password=os.environ.get(PASSWORD_ENV),
        password_env=PASSWORD_ENV,
        database=None,
    )
    group = f"{PREFIX}{uuid.uuid4().hex[:8]}"
    user = group
    nodes, edges = _graph(group, args.edges)

    async def save(driver: Any) -> None:
        await driver.build_indices_and_constraints()  # as a running graphiti has them
        await driver.entity_node_ops.save_bulk(driver, nodes)
        await driver.entity_edge_ops.save_bulk(driver, edges)

    async def clear(driver: Any) -> None:
        while True:
            records, _, _ = await driver.execute_query(
                query("graphiti_clear_groups"), prefix=PREFIX
            )
            if not records or int(records[0]["deleted"]) == 0:
                return

    started = time.perf_counter()
    _graphiti(source, save)
    print(
        f"graphiti group {group}: {len(nodes):,} entity nodes, {len(edges):,} edges saved "
        f"in {time.perf_counter() - started:.1f} s (graphiti-core's save_bulk)",
        flush=True,
    )
    options = {
        "uri": args.uri,
        "password": source.password if args.uri else None,
        "if_changed": True,  # as the command runs
    }
    with Memory(config) as memory:
        try:
            _timed(memory, f"first import ({len(edges):,} edges)", group, user, **options)
            changed = _invalidate(edges, args.invalidate)

            async def resave(driver: Any) -> None:
                await driver.entity_edge_ops.save_bulk(driver, changed)

            _graphiti(source, resave)
            label = f"sync: {args.invalidate:,} invalidated, {args.invalidate:,} new"
            _timed(memory, label, group, user, **options)
            _timed(memory, "rerun, nothing changed", group, user, **options)
            full = {**options, "if_changed": False}
            _timed(memory, "rerun --full, nothing changed", group, user, **full)
            started = time.perf_counter()
            read = read_group(source, group)
            print(
                f"of which graphiti-core's get_by_group_ids reads the group "
                f"({len(read.edges):,} edges, {len(read.nodes):,} nodes): "
                f"{time.perf_counter() - started:.2f} s",
                flush=True,
            )
        finally:
            memory.erase_user(user)
            _graphiti(source, clear)


if __name__ == "__main__":
    main()
