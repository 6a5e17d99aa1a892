"""Import a Graphiti graph into hmem, read with graphiti-core's own models and queries.

One Graphiti ``group_id`` becomes one hmem user. Mapping:

- ``EntityEdge`` → ``Fact``: ``fact`` is the text, ``valid_at``/``invalid_at`` the world
  window (valid_from/valid_to), ``created_at``/``expired_at`` the belief window
  (known_from/known_to); an edge without ``valid_at`` is taken as valid from when it
  was created. The edge mentions its two endpoint entities and comes from its episodes.
- ``EntityNode`` → ``Entity`` (type: its first label besides ``Entity``, lowercased);
  nodes with the same name become one entity, as hmem resolves entities by name.
- ``EpisodicNode`` → ``Episode`` (secrets redacted like every stored episode).
- An expired edge is a closed fact. Graphiti does not store which edge invalidated it;
  it sets the old edge's ``invalid_at`` to the new edge's ``valid_at``. So the successor
  is the edge of the same group that starts exactly then, shares an endpoint, and was
  created no later than the old one expired; when exactly one edge fits best (sharing
  both endpoints beats one), hmem links it ``(new)-[:SUPERSEDES {reason:
  contradiction}]->(old)``; otherwise the fact is closed as a retraction.

Idempotent and resumable: fact ids are the edge uuids and everything is merged, so a
rerun adds nothing and an interrupted import is finished by running it again.
graphiti-core is the optional extra ``hmem[graphiti]``.
"""

from __future__ import annotations

import asyncio
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hmem.errors import ConfigError, PolicyRefusal, TemporalOrderError
from hmem.extract.policy import redact, require_allowed
from hmem.graph.imported import ImportedFact
from hmem.memory import Memory
from hmem.models import EntityRef, Episode, SupersedeReason, check_window

__all__ = ["GraphitiGraph", "ImportSummary", "import_graphiti", "read_group", "successors"]


@dataclass
class GraphitiGraph:
    """One group of a Graphiti graph, as graphiti-core's own model objects."""

    nodes: list[Any] = field(default_factory=list)
    edges: list[Any] = field(default_factory=list)
    episodes: list[Any] = field(default_factory=list)


@dataclass
class ImportSummary:
    group_id: str
    user_id: str
    source: dict[str, int] = field(default_factory=dict)
    facts_added: int = 0
    facts_existing: int = 0
    closed: int = 0
    supersedes_added: int = 0
    supersedes_found: int = 0
    skipped: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def as_dict(self) -> dict[str, Any]:
        return {
            "group_id": self.group_id,
            "user_id": self.user_id,
            "source": self.source,
            "facts_added": self.facts_added,
            "facts_existing": self.facts_existing,
            "closed": self.closed,
            "supersedes_found": self.supersedes_found,
            "supersedes_added": self.supersedes_added,
            "skipped": dict(self.skipped),
        }


def _require_graphiti() -> None:
    try:
        import graphiti_core  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            "importing from Graphiti needs graphiti-core: pip install 'hmem[graphiti]'"
        ) from exc


async def _pages(fetch: Callable[..., Any], driver: Any, group_id: str, page: int) -> list[Any]:
    from graphiti_core.errors import GroupsEdgesNotFoundError

    out: list[Any] = []
    cursor = None
    while True:
        try:
            batch = await fetch(driver, [group_id], limit=page, uuid_cursor=cursor)
        except GroupsEdgesNotFoundError:  # graphiti raises on an empty edge page
            batch = []
        out.extend(batch)
        if len(batch) < page:
            return out
        cursor = batch[-1].uuid  # pages are in descending uuid order


async def read_group(driver: Any, group_id: str, page: int = 500) -> GraphitiGraph:
    """Every entity node, entity edge and episode of ``group_id``, paged by uuid with
    graphiti-core's own ``get_by_group_ids``."""
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodicNode

    return GraphitiGraph(
        nodes=await _pages(EntityNode.get_by_group_ids, driver, group_id, page),
        edges=await _pages(EntityEdge.get_by_group_ids, driver, group_id, page),
        episodes=await _pages(EpisodicNode.get_by_group_ids, driver, group_id, page),
    )


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def successors(edges: Sequence[Any]) -> dict[str, str]:
    """``{old edge uuid: the edge that invalidated it}`` where it can be told (see the
    module's docstring)."""
    starting: defaultdict[datetime, list[Any]] = defaultdict(list)
    for edge in edges:
        if edge.valid_at is not None:
            starting[_utc(edge.valid_at)].append(edge)  # type: ignore[index]
    found = {}
    for old in edges:
        ended, expired = _utc(old.invalid_at), _utc(old.expired_at)
        if ended is None or expired is None:
            continue
        ends = {old.source_node_uuid, old.target_node_uuid}
        scored = [
            (len(ends & {new.source_node_uuid, new.target_node_uuid}), new.uuid)
            for new in starting.get(ended, [])
            if new.uuid != old.uuid and _utc(new.created_at) <= expired  # type: ignore[operator]
        ]
        scored = [s for s in scored if s[0] > 0]
        if not scored:
            continue
        best = max(s[0] for s in scored)
        top = [uuid for shared, uuid in scored if shared == best]
        if len(top) == 1:
            found[old.uuid] = top[0]
    return found


def _entity(node: Any) -> EntityRef:
    labels = [label for label in node.labels if label != "Entity"]
    kind = labels[0].lower()[:40] if labels else "thing"
    return EntityRef(name=" ".join(node.name.split())[:200] or node.uuid, type=kind)


def _fact(
    edge: Any, entities: dict[str, EntityRef], episodes: set[str], closed_by: dict[str, str]
) -> ImportedFact:
    known_from = _utc(edge.created_at)
    assert known_from is not None  # graphiti's created_at is required
    known_to = _utc(edge.expired_at)
    reason = None
    if known_to is not None:
        succeeded = edge.uuid in closed_by
        reason = SupersedeReason.CONTRADICTION if succeeded else SupersedeReason.RETRACTION
    names = [entities[u] for u in (edge.source_node_uuid, edge.target_node_uuid) if u in entities]
    return ImportedFact(
        id=edge.uuid,
        text=" ".join(edge.fact.split()),
        valid_from=_utc(edge.valid_at) or known_from,
        valid_to=_utc(edge.invalid_at),
        known_from=known_from,
        known_to=known_to,
        close_reason=reason,
        source=f"graphiti:{edge.name}"[:200],
        entities=list({e.canonical: e for e in names}.values()),
        episode_ids=[e for e in edge.episodes if e in episodes],
    )


def _problem(edge: Any, max_chars: int) -> str | None:
    """Why an edge cannot be a fact (the write policy, its length, its windows)."""
    text = " ".join(edge.fact.split())
    try:
        require_allowed(text)
    except PolicyRefusal:
        return "refused"
    if not text:
        return "empty"
    if len(text) > max_chars:
        return "too_long"
    created = _utc(edge.created_at)
    try:
        check_window(_utc(edge.valid_at) or created, _utc(edge.invalid_at), "valid")
        check_window(created, _utc(edge.expired_at), "known")
    except TemporalOrderError:
        return "bad_window"
    return None


def _episode(node: Any, user_id: str) -> Episode:
    text, kinds = redact(node.content)
    return Episode(
        id=node.uuid,
        user_id=user_id,
        session_id=(node.name or None) and node.name[:128],
        observed_at=_utc(node.valid_at) or _utc(node.created_at),
        text=text,
        redactions=kinds,
    )


def import_graphiti(
    memory: Memory,
    group_id: str,
    *,
    user_id: str | None = None,
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    batch: int = 200,
    progress: Callable[[int], None] | None = None,
    on_read: Callable[[GraphitiGraph], None] | None = None,
) -> ImportSummary:
    """Import ``group_id`` of the Graphiti graph at ``uri`` (default: hmem's own Neo4j)
    as ``user_id`` (default: the group id). ``progress(n)`` is called after each batch
    of ``n`` edges; ``on_read`` once the source is read."""
    _require_graphiti()
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    from hmem.memory import resolve_password

    config = memory.config
    # Made outside a running loop, so graphiti does not schedule building its own
    # indices: reading a graph must not change it.
    driver = Neo4jDriver(
        uri or config.neo4j_uri,
        user or config.neo4j_user,
        password if password is not None else resolve_password(config),
        database=database or config.neo4j_database,
    )

    async def read() -> GraphitiGraph:
        try:
            return await read_group(driver, group_id)
        finally:
            await driver.close()

    graph = asyncio.run(read())
    if on_read is not None:
        on_read(graph)
    target = user_id or group_id
    summary = ImportSummary(
        group_id=group_id,
        user_id=target,
        source={
            "entity_nodes": len(graph.nodes),
            "entity_edges": len(graph.edges),
            "episodes": len(graph.episodes),
            "expired_edges": sum(e.expired_at is not None for e in graph.edges),
        },
    )
    entities = {node.uuid: _entity(node) for node in graph.nodes}
    episodes = [_episode(node, target) for node in graph.episodes]
    kept = []
    for edge in graph.edges:
        problem = _problem(edge, config.max_fact_chars)
        if problem is None:
            kept.append(edge)
        else:
            summary.skipped[problem] += 1
    closed_by = successors(kept)  # only between facts that are written
    episode_ids = {e.id for e in episodes}
    facts = [_fact(edge, entities, episode_ids, closed_by) for edge in kept]
    store = memory.store
    first = True
    for start in range(0, max(len(facts), 1), batch):
        chunk = facts[start : start + batch]
        if chunk and memory.embedder is not None:
            vectors = memory.embedder.embed([f.text for f in chunk])
            chunk = [_with(f, v) for f, v in zip(chunk, vectors, strict=True)]
        done = store.import_facts(
            target,
            chunk,
            episodes=episodes if first else (),
            entities=list(entities.values()) if first else (),
        )
        first = False
        summary.facts_added += done["facts"]
        summary.facts_existing += done["existing"]
        if progress is not None:
            progress(len(chunk))
    summary.closed = sum(f.known_to is not None for f in facts)
    imported = {f.id: f for f in facts}
    links = [
        (new, old, imported[old].known_to or imported[new].known_from)
        for old, new in sorted(closed_by.items())
        if old in imported and new in imported
    ]
    summary.supersedes_found = len(links)
    summary.supersedes_added = store.import_supersessions(target, links)
    return summary


def _with(fact: ImportedFact, vector: Sequence[float]) -> ImportedFact:
    from dataclasses import replace

    return replace(fact, embedding=list(vector))
