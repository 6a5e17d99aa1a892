"""Import a Graphiti graph into hmem, and keep it in sync while graphiti keeps running.

One Graphiti ``group_id`` becomes one hmem user. Mapping:

- ``EntityEdge`` → ``Fact``: ``fact`` is the text, ``valid_at``/``invalid_at`` the world
  window (valid_from/valid_to), ``created_at``/``expired_at`` the belief window
  (known_from/known_to). An edge without ``valid_at`` starts at its episode's reference
  time (the edge's ``reference_time``, else its earliest episode's ``valid_at``), else
  at ``created_at``: graphiti's ingestion clock would date a backfilled history by the
  day it was loaded. The edge mentions its two endpoint entities and comes from its
  episodes.
- ``EntityNode`` → ``Entity`` (type: its first label besides ``Entity``, lowercased);
  nodes with the same name become one entity, as hmem resolves entities by name, and a
  typed node's type wins over the default ``thing``.
- ``EpisodicNode`` → ``Episode`` (secrets redacted like every stored episode).
- An expired edge is a closed fact. Graphiti does not store which edge invalidated it;
  it sets the old edge's ``invalid_at`` to the new edge's ``valid_at``. So the successor
  is the edge of the same group that starts exactly then, shares an endpoint, and was
  created no later than the old one expired; when exactly one edge fits best (sharing
  both endpoints beats one), hmem links it ``(new)-[:SUPERSEDES {reason:
  contradiction}]->(old)``; otherwise the fact is closed as a retraction.

A rerun is a sync: it compares the group with what hmem stores (fact ids are the edge
uuids), writes the new edges, closes with graphiti's times the stored facts graphiti has
expired since, links their successors, and leaves the rest alone; every number it
reports is counted in hmem. A fact erased in hmem by hand is not brought back. Each run
records the group's watermark (its counts and latest change times) in the user's audit
trail; with ``if_changed`` (the command's default) a run whose watermark has not moved
reads nothing more: graphiti changed nothing since a run that finished (an interrupted
run records no watermark, so the next one compares everything).
Interrupted, a run is finished by the next one. graphiti-core is the optional extra
``hmem[graphiti]``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from hmem.errors import ConfigError, PolicyRefusal, TemporalOrderError
from hmem.extract.policy import redact, require_allowed, require_allowed_value
from hmem.graph.imported import ImportedClosure, ImportedFact
from hmem.importers.graphiti_source import (
    GraphitiGraph,
    Source,
    group_state,
    read_group,
    source_for,
)
from hmem.memory import Memory
from hmem.models import EntityRef, Episode, SupersedeReason, check_window

__all__ = ["GraphitiGraph", "ImportSummary", "import_graphiti", "successors"]

SOURCE = "graphiti"
PASSWORD_ENV = "GRAPHITI_NEO4J_PASSWORD"  # noqa: S105 (the variable's name, not a password)


@dataclass
class ImportSummary:
    """What one run changed in hmem (``added``, ``closed``: counted in hmem) and what
    it left alone."""

    group_id: str
    user_id: str
    source: dict[str, Any] = field(default_factory=dict)
    since: str | None = None  # the previous run's watermark time
    unchanged: bool = False  # if_changed, and the watermark had not moved: nothing read
    added: int = 0
    added_closed: int = 0  # of the added facts, those graphiti had already expired
    closed: int = 0  # stored open facts closed now, with graphiti's times
    left_alone: int = 0  # stored facts of the group this run did not change
    erased_in_hmem: int = 0  # edges whose fact was erased in hmem: not brought back
    supersedes_found: int = 0
    supersedes_added: int = 0
    dates: dict[str, int] = field(
        default_factory=lambda: {"valid_at": 0, "reference_time": 0, "created_at": 0}
    )
    skipped: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "group_id": self.group_id,
            "user_id": self.user_id,
            "source": self.source,
            "since": self.since,
            "unchanged": self.unchanged,
            "added": self.added,
            "added_closed": self.added_closed,
            "closed": self.closed,
            "left_alone": self.left_alone,
            "erased_in_hmem": self.erased_in_hmem,
            "supersedes_found": self.supersedes_found,
            "supersedes_added": self.supersedes_added,
            "dates": self.dates,
            "skipped": dict(Counter(s["reason"] for s in self.skipped)),
            "skipped_edges": self.skipped,
        }


def _require_graphiti() -> None:
    try:
        import graphiti_core  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            "importing from Graphiti needs graphiti-core: pip install 'hmem[graphiti]'"
        ) from exc


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


def _entities(nodes: Sequence[Any]) -> tuple[dict[str, EntityRef], list[EntityRef]]:
    """``{node uuid: entity}`` and the entities, one per canonical name: a typed node
    wins over ``thing`` whichever comes first."""
    refs = {node.uuid: _entity(node) for node in nodes}
    # A name or type the write policy refuses is not stored: its facts lose that mention.
    by_uuid = {u: r for u, r in refs.items() if _allowed(r.name) and _allowed(r.type)}
    by_name: dict[str, EntityRef] = {}
    for ref in by_uuid.values():
        known = by_name.get(ref.canonical)
        if known is None or (known.type == "thing" and ref.type != "thing"):
            by_name[ref.canonical] = ref
    return {u: by_name[r.canonical] for u, r in by_uuid.items()}, list(by_name.values())


def _allowed(value: str) -> bool:
    """The write policy's verdict on a caller string stored beside a fact."""
    try:
        require_allowed_value(value, "graphiti")
    except PolicyRefusal:
        return False
    return True


def _start(edge: Any, episode_times: dict[str, datetime]) -> tuple[datetime, str]:
    """When the edge became true, and which of graphiti's times said so."""
    if edge.valid_at is not None:
        return _utc(edge.valid_at), "valid_at"  # type: ignore[return-value]
    reference = _utc(getattr(edge, "reference_time", None))  # graphiti-core >= 0.30
    if reference is None:
        times = [episode_times[e] for e in edge.episodes if e in episode_times]
        reference = min(times) if times else None
    if reference is not None:
        return reference, "reference_time"
    return _utc(edge.created_at), "created_at"  # type: ignore[return-value]


def _fact(
    edge: Any,
    start: datetime,
    entities: dict[str, EntityRef],
    episodes: set[str],
    closed_by: dict[str, str],
) -> ImportedFact:
    known_from = _utc(edge.created_at)
    assert known_from is not None  # graphiti's created_at is required
    known_to = _utc(edge.expired_at)
    reason = None
    if known_to is not None:
        succeeded = edge.uuid in closed_by
        reason = _end_reason(succeeded, edge)
    names = [entities[u] for u in (edge.source_node_uuid, edge.target_node_uuid) if u in entities]
    return ImportedFact(
        id=edge.uuid,
        text=" ".join(edge.fact.split()),
        valid_from=start,
        valid_to=_utc(edge.invalid_at),
        known_from=known_from,
        known_to=known_to,
        close_reason=reason,
        source=f"graphiti:{edge.name}"[:200],
        entities=list({e.canonical: e for e in names}.values()),
        episode_ids=[e for e in edge.episodes if e in episodes],
    )


def _problem(edge: Any, start: datetime, max_chars: int) -> str | None:
    """Why an edge cannot be a fact (the write policy, its length, its windows)."""
    text = " ".join(edge.fact.split())
    try:
        require_allowed(text)
    except PolicyRefusal:
        return "refused"
    if not _allowed(f"graphiti:{edge.name}"):  # the fact's source
        return "refused"
    if not text:
        return "empty"
    if len(text) > max_chars:
        return "too_long"
    try:
        check_window(start, _utc(edge.invalid_at), "valid")
        check_window(_utc(edge.created_at), _utc(edge.expired_at), "known")
    except TemporalOrderError:
        return "bad_window"
    return None


def _episode(node: Any, user_id: str) -> Episode:
    text, kinds = redact(node.content)
    return Episode(
        id=node.uuid,
        user_id=user_id,
        session_id=node.name[:128] if node.name and _allowed(node.name) else None,
        observed_at=_utc(node.valid_at) or _utc(node.created_at),
        text=text,
        redactions=kinds,
    )


def _end_reason(succeeded: bool, edge: Any) -> SupersedeReason:
    """Why graphiti expired an edge: another replaced it (contradiction); it ended in the
    world (``invalid_at``: ended, still believed with its end); or it was withdrawn
    (retraction). docs/time.md."""
    if succeeded:
        return SupersedeReason.CONTRADICTION
    return SupersedeReason.ENDED if edge.invalid_at is not None else SupersedeReason.RETRACTION


def _closure(edge: Any, stored: dict[str, Any], closed_by: dict[str, str]) -> ImportedClosure | str:
    """How a stored open fact closes now that graphiti expired its edge (a string: why
    it cannot)."""
    known_to = _utc(edge.expired_at)
    assert known_to is not None  # only expired edges are asked about
    valid_to = _utc(edge.invalid_at) or stored["valid_to"]
    ends_early = valid_to is not None and valid_to < stored["valid_from"]
    if known_to < stored["known_from"] or ends_early:
        return "bad_window"
    reason = _end_reason(edge.uuid in closed_by, edge)
    return ImportedClosure(edge.uuid, known_to, valid_to, reason)


def _watermark(memory: Memory, user_id: str, group_id: str) -> dict[str, Any] | None:
    for row in memory.store.last_syncs(user_id):
        detail = row["detail"]
        if detail.get("source") == SOURCE and detail.get("group_id") == group_id:
            return row
    return None


def import_graphiti(
    memory: Memory,
    group_id: str,
    *,
    user_id: str | None = None,
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    password_env: str = PASSWORD_ENV,
    database: str | None = None,
    batch: int = 200,
    if_changed: bool = False,
    progress: Callable[[int], None] | None = None,
    on_plan: Callable[[int], None] | None = None,
) -> ImportSummary:
    """Sync ``group_id`` of the Graphiti graph at ``uri`` (default: hmem's own Neo4j,
    with hmem's own credentials; ``password`` is used only with ``uri``) into
    ``user_id`` (default: the group id). ``on_plan(n)`` is told how many facts will be
    written, ``progress(n)`` after each batch of ``n``."""
    _require_graphiti()
    source = source_for(
        memory.config,
        uri=uri,
        user=user,
        password=password,
        password_env=password_env,
        database=database,
    )
    state = group_state(source, group_id)  # before anything is written: no stray user
    target = user_id or group_id
    summary = ImportSummary(group_id=group_id, user_id=target, source=state)
    # the schema first, even for an unchanged rerun: a store that lost an index gets it
    # back here rather than failing its next search on the missing index
    memory.init_schema()
    previous = _watermark(memory, target, group_id)
    if previous is not None:
        summary.since = previous["at"].isoformat()
        seen = previous["detail"]
        if if_changed and (seen.get("state"), seen.get("uri")) == (state, source.uri):
            summary.unchanged = True
            return summary
    _sync(memory, source, group_id, summary, batch, progress, on_plan)
    memory.store.record_sync(
        target,
        {
            "source": SOURCE,
            "group_id": group_id,
            "uri": source.uri,
            "state": state,
            "added": summary.added,
            "closed": summary.closed,
        },
    )
    return summary


def _sync(
    memory: Memory,
    source: Source,
    group_id: str,
    summary: ImportSummary,
    batch: int,
    progress: Callable[[int], None] | None,
    on_plan: Callable[[int], None] | None,
) -> None:
    graph = read_group(source, group_id)
    target, store = summary.user_id, memory.store
    entity_of, entities = _entities(graph.nodes)
    episodes = [_episode(node, target) for node in graph.episodes]
    episode_times = {
        node.uuid: t for node in graph.episodes if (t := _utc(node.valid_at)) is not None
    }
    kept, starts = [], {}
    for edge in graph.edges:
        start, dated_by = _start(edge, episode_times)
        problem = _problem(edge, start, memory.config.max_fact_chars)
        if problem is None:
            kept.append(edge)
            starts[edge.uuid] = (start, dated_by)
        else:
            summary.skipped.append({"uuid": edge.uuid, "reason": problem})
    closed_by = successors(kept)  # only between facts that are written
    stored = store.imported_state(target, [e.uuid for e in kept])
    erased = store.erased_fact_refs(target)
    episode_ids = {e.id for e in episodes}
    fresh: list[ImportedFact] = []
    expiring = [e for e in kept if stored.get(e.uuid) and e.expired_at is not None]
    windows = store.fact_windows(target, [e.uuid for e in expiring])
    closures: list[ImportedClosure] = []
    for edge in expiring:
        if edge.uuid not in windows:
            continue  # erased in hmem since it was read
        closing = _closure(edge, windows[edge.uuid], closed_by)
        if isinstance(closing, str):
            summary.skipped.append({"uuid": edge.uuid, "reason": closing})
        else:
            closures.append(closing)
    for edge in kept:
        if edge.uuid in stored:
            continue
        if store.fact_ref(target, edge.uuid) in erased:
            summary.erased_in_hmem += 1
        else:
            start, dated_by = starts[edge.uuid]
            fresh.append(_fact(edge, start, entity_of, episode_ids, closed_by))
            summary.dates[dated_by] += 1
    if on_plan is not None:
        on_plan(len(fresh))
    if fresh and memory.embedder is not None:
        memory.check_embedding_model()
    first = True
    for begin in range(0, max(len(fresh), 1), batch):
        chunk = fresh[begin : begin + batch]
        if chunk and memory.embedder is not None:
            vectors = memory.embedder.embed([f.text for f in chunk])
            chunk = [replace(f, embedding=list(v)) for f, v in zip(chunk, vectors, strict=True)]
        done = store.import_facts(
            target,
            chunk,
            episodes=episodes if first else (),
            entities=entities if first else (),
        )
        first = False
        summary.added += done["facts"]
        if progress is not None:
            progress(len(chunk))
    summary.added_closed = sum(f.known_to is not None for f in fresh)
    summary.closed = len(store.close_imported(target, closures))
    summary.left_alone = len(stored) - summary.closed
    in_hmem = set(stored) | {f.id for f in fresh}
    expired = {e.uuid: t for e in kept if (t := _utc(e.expired_at)) is not None}
    links = [
        (new, old, expired[old])  # closed_by names expired edges only
        for old, new in sorted(closed_by.items())
        if old in in_hmem and new in in_hmem
    ]
    summary.supersedes_found = len(links)
    summary.supersedes_added = store.import_supersessions(target, links)
