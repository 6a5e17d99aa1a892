"""The Graphiti side of an import: where it is, whether it answers, what one group holds,
and reading it with graphiti-core's own models.

Every way the source can fail before anything is written is one ``HmemError`` with a
one-line message (the CLI prints it as is): a URI that is not Bolt, no password for a
source of its own, a server that does not answer, credentials it refuses, a database it
does not have, a group it does not hold (the message lists those it does) or no Graphiti
data at all. The source's credentials are used only for the source: without ``--uri``
the source is hmem's own Neo4j with hmem's own credentials.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from neo4j import READ_ACCESS, GraphDatabase
from neo4j import exceptions as neo

from hmem.config import Config
from hmem.errors import ConfigError, NotFoundError, StoreUnavailableError
from hmem.graph import catalog

__all__ = ["GraphitiGraph", "Source", "group_state", "read_group", "source_for"]

BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
# graphiti-core's driver logs each Neo4j notification (about 1.5 KB per page read) and
# each failed query with its text; neither is the user's business during an import.
_QUIET = ("neo4j.notifications", "graphiti_core.driver.neo4j_driver")
_GROUPS_LISTED = 20


@dataclass
class GraphitiGraph:
    """One group of a Graphiti graph, as graphiti-core's own model objects."""

    nodes: list[Any] = field(default_factory=list)
    edges: list[Any] = field(default_factory=list)
    episodes: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Source:
    """Graphiti's Neo4j: its address, credentials and database."""

    uri: str
    user: str
    password: str = field(repr=False)
    database: str
    timeout_s: float = 5.0

    @property
    def where(self) -> str:
        return f"Graphiti's Neo4j at {self.uri} (database {self.database!r})"


@cache
def _query(name: str) -> catalog.Statement:
    # Statements on another system's graph: no $user_id there, so parsed under the
    # catalog's unscoped prefix; the header is checked like every statement's.
    text = (resources.files("hmem.importers") / "queries" / f"{name}.cypher").read_text("utf-8")
    return catalog.parse(f"admin_{name}", text)


def source_for(
    config: Config,
    *,
    uri: str | None,
    user: str | None,
    password: str | None,
    password_env: str,
    database: str | None,
) -> Source:
    """The source an import reads. Without ``uri``, hmem's own Neo4j with hmem's own
    credentials (a ``password`` given then is not used: it is the source's, and hmem's
    server must never receive it). With ``uri``, a Bolt URI and the password from
    ``password_env`` (``password``), required."""
    from hmem.memory import resolve_password

    timeout = config.neo4j_connect_timeout_s
    if uri is None:
        return Source(
            config.neo4j_uri,
            config.neo4j_user,
            resolve_password(config),
            database or config.neo4j_database,
            timeout,
        )
    scheme = urlsplit(uri).scheme.lower()
    if scheme not in BOLT_SCHEMES:
        raise ConfigError(
            f"--uri {uri!r}: Graphiti's Neo4j is read over Bolt, so the URI starts with "
            f"bolt://, neo4j:// (or their +s / +ssc forms), not {scheme or 'no scheme'}://"
            " (port 7687 by default, not the browser's 7474)"
        )
    if password is None:
        raise ConfigError(
            f"--uri {uri!r} needs the source's password in ${password_env} "
            "(hmem's own password is never sent to another server)"
        )
    return Source(uri, user or "neo4j", password, database or "neo4j", timeout)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _rows(source: Source, name: str, **params: Any) -> list[dict[str, Any]]:
    """One read statement on the source, each failure as one line."""
    stmt = _query(name)
    try:
        driver = GraphDatabase.driver(
            source.uri,
            auth=(source.user, source.password),
            connection_timeout=source.timeout_s,
            notifications_min_severity="OFF",
        )
    except (neo.ConfigurationError, ValueError) as exc:
        raise ConfigError(f"{source.where}: {exc}") from None
    try:
        # an auto-commit query: a refused connection fails at once, without the
        # managed transaction's retries
        with driver.session(database=source.database, default_access_mode=READ_ACCESS) as s:
            return [r.data() for r in s.run(stmt.text, stmt.bind(params))]
    except neo.AuthError:
        raise ConfigError(
            f"{source.where} refused the credentials of user {source.user!r}: check the "
            "password (--password-env) and --neo4j-user"
        ) from None
    except (neo.ServiceUnavailable, neo.SessionExpired, OSError) as exc:
        reason = _first_line(exc)
        raise StoreUnavailableError(f"cannot reach {source.where}: {reason}") from None
    except neo.ClientError as exc:
        if exc.code == "Neo.ClientError.Database.DatabaseNotFound":
            raise NotFoundError(f"{source.where}: no such database") from None
        raise ConfigError(f"{source.where}: {exc.message or exc.code}") from None
    finally:
        driver.close()


def group_state(source: Source, group_id: str) -> dict[str, Any]:
    """What ``group_id`` holds (counts, latest change times): the watermark's numbers.
    A group with nothing is refused, naming the groups that exist, or saying that the
    database has no Graphiti data."""
    [state] = _rows(source, "graphiti_group_state", group_id=group_id)
    if state["entity_edges"] or state["entity_nodes"] or state["episodes"]:
        return state
    groups = _rows(source, "graphiti_groups", limit=_GROUPS_LISTED + 1)
    if not groups:
        raise NotFoundError(
            f"{source.where} has no Graphiti data (no Entity or Episodic node with a "
            "group_id): check --uri and --database"
        )
    names = ", ".join(f"{g['group_id']!r} ({g['nodes']} nodes)" for g in groups[:_GROUPS_LISTED])
    more = " and more" if len(groups) > _GROUPS_LISTED else ""
    raise NotFoundError(
        f"no Graphiti group {group_id!r} (or it is empty) in {source.where}; "
        f"its groups: {names}{more}"
    )


@contextmanager
def quiet() -> Iterator[None]:
    """graphiti-core's Neo4j notifications and query logs silenced while reading."""
    loggers = [logging.getLogger(name) for name in _QUIET]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


async def _pages(fetch: Callable[..., Any], driver: Any, group_id: str, page: int) -> list[Any]:
    from graphiti_core.errors import GroupsEdgesNotFoundError, GroupsNodesNotFoundError

    out: list[Any] = []
    cursor = None
    while True:
        try:
            batch = await fetch(driver, [group_id], limit=page, uuid_cursor=cursor)
        except (GroupsEdgesNotFoundError, GroupsNodesNotFoundError):  # an empty page
            batch = []
        out.extend(batch)
        if len(batch) < page:
            return out
        cursor = batch[-1].uuid  # pages are in descending uuid order


async def _read(driver: Any, group_id: str, page: int) -> GraphitiGraph:
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodicNode

    return GraphitiGraph(
        nodes=await _pages(EntityNode.get_by_group_ids, driver, group_id, page),
        edges=await _pages(EntityEdge.get_by_group_ids, driver, group_id, page),
        episodes=await _pages(EpisodicNode.get_by_group_ids, driver, group_id, page),
    )


def read_group(source: Source, group_id: str, page: int = 2000) -> GraphitiGraph:
    """Every entity node, entity edge and episode of ``group_id``, paged by uuid with
    graphiti-core's own ``get_by_group_ids``."""
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    # Made outside a running loop, so graphiti does not schedule building its own
    # indices: reading a graph must not change it.
    driver = Neo4jDriver(source.uri, source.user, source.password, database=source.database)

    async def run() -> GraphitiGraph:
        try:
            return await _read(driver, group_id, page)
        finally:
            await driver.close()

    with quiet():
        try:
            return asyncio.run(run())
        except neo.AuthError:
            raise ConfigError(f"{source.where} refused the credentials") from None
        except (neo.ServiceUnavailable, neo.SessionExpired, OSError) as exc:
            reason = _first_line(exc)
            raise StoreUnavailableError(f"lost {source.where} while reading: {reason}") from None
