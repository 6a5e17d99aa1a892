"""Apply hmem's schema idempotently and check it against the configuration."""

from __future__ import annotations

from typing import Any

from neo4j import Driver
from neo4j.exceptions import DatabaseError

from hmem._text import lexical_user_key
from hmem.errors import SchemaError
from hmem.graph import catalog

__all__ = [
    "SCHEMA_STATEMENTS",
    "VECTOR_INDEX",
    "VECTOR_LABEL",
    "apply_schema",
    "check_vector_index",
    "filtered_search",
    "migrate_belief_history",
    "schema_missing",
    "server_version",
    "show_index",
]

VECTOR_INDEX = "fact_embedding"
VECTOR_LABEL = "IndexedFact"  # the facts the vector index covers (schema_fact_vector.cypher)
FULLTEXT_INDEX = "fact_text_user"
# schema_fact_fulltext.cypher's configuration: an index made otherwise is made again
FULLTEXT_CONFIG = {"fulltext.analyzer": "english", "fulltext.eventually_consistent": True}
FULLTEXT_PROPERTIES = ["text", "user_key"]

SCHEMA_STATEMENTS = (
    "schema_user_unique",
    "schema_fact_unique",
    "schema_entity_unique",
    "schema_episode_unique",
    "schema_audit_unique",
    "schema_profile_unique",
    "schema_fact_user_index",
    "schema_fact_hash_index",
    "schema_fact_valid_from_drop",
    "schema_fact_known_from_drop",
    "schema_entity_user_index",
    "schema_episode_user_index",
    "schema_audit_user_index",
    "schema_erasure_index",
    "schema_embedding_model_unique",
    "schema_erasure_ref_index",
    "schema_fact_fulltext_drop_old",
    "schema_fact_fulltext",
)


def _run(driver: Driver, database: str, statement: str, **params: Any) -> list[dict[str, Any]]:
    stmt = catalog.statement(statement)
    records, _, _ = driver.execute_query(stmt.text, stmt.bind(params), database_=database)
    return [r.data() for r in records]


def show_index(driver: Driver, database: str, name: str) -> dict[str, Any] | None:
    """The ``SHOW INDEXES`` row of index ``name``, or None when it does not exist.

    Neo4j 5.26 fails every ``SHOW INDEXES`` with "Invalid progress specified: a/b" while
    an index whose population restarted with the server is still populating (its
    progress total is a stale estimate). That index is then reported as POPULATING with
    unknown options rather than letting a server-side bookkeeping error stop a start.
    """
    try:
        rows = _run(driver, database, "schema_show_index", name=name)
    except DatabaseError as exc:
        if "Invalid progress specified" not in (exc.message or ""):
            raise
        return {"name": name, "state": "POPULATING", "options": None}
    return rows[0] if rows else None


def server_version(driver: Driver, database: str) -> str:
    """The Neo4j kernel's version (``dbms.components()``), e.g. ``5.26.30``, ``2026.09.0``."""
    return str(_run(driver, database, "schema_server_version")[0]["version"])


def filtered_search(version: str) -> bool:
    """Whether a server of ``version`` filters vector searches inside the index (Cypher
    25 ``SEARCH ... WHERE`` on filter properties: GA from 2026.02, Community included)."""
    parts = version.split(".")
    try:
        year, month = int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return False
    return (year, month) >= (2026, 2)


def check_vector_index(driver: Driver, database: str, dim: int) -> bool:
    """True if the vector index exists with ``dim``; False if absent.

    Raises ``SchemaError`` when it exists with another dimension: writing 384-d vectors
    into a 768-d index would fail late or, worse, search garbage.
    """
    row = show_index(driver, database, VECTOR_INDEX)
    if row is None:
        return False
    _check_dimension(row, dim)
    return True


def _check_dimension(row: dict[str, Any], dim: int) -> None:
    """``check_vector_index``'s test of an existing index's ``SHOW INDEXES`` row."""
    if row.get("options") is None:
        return  # populating, options unknown: checked again once it is online
    config = row["options"].get("indexConfig") or {}
    existing = config.get("vector.dimensions")
    if existing != dim:
        raise SchemaError(
            f"the vector index {VECTOR_INDEX!r} has {existing} dimensions but the configured "
            f"embedding_dim is {dim}; use an embedding model of {existing} dimensions, or "
            f"drop the index and re-embed (see docs)"
        )


def _fulltext_outdated(driver: Driver, database: str) -> bool:
    """Whether the fulltext index exists with another configuration than
    ``FULLTEXT_CONFIG`` (False when absent or its options are not known yet)."""
    row = show_index(driver, database, FULLTEXT_INDEX)
    if row is None or row.get("options") is None:
        return False
    if row.get("properties") not in (None, FULLTEXT_PROPERTIES):
        return True  # an older hmem's index over the user_id phrase (its words matched)
    config = row["options"].get("indexConfig") or {}
    return any(config.get(key) != value for key, value in FULLTEXT_CONFIG.items())


def _key_old_facts(driver: Driver, database: str) -> int:
    """Give facts written before ``Fact.user_key`` their key; returns how many."""
    keyed = 0
    while True:
        users = _run(driver, database, "schema_fact_user_key_pending", limit=500)
        if not users:
            return keyed
        for row in users:
            uid = row["user_id"]
            [done] = _run(
                driver,
                database,
                "schema_fact_user_key_set",
                user_id=uid,
                user_key=lexical_user_key(str(uid)),
            )
            keyed += int(done["keyed"])


def migrate_belief_history(driver: Driver, database: str, batch: int = 10_000) -> int:
    """Facts stored before the belief history (docs/time.md) get it from their state
    fields, ``batch`` per transaction; returns how many. Idempotent: 0 once done."""
    total = 0
    while True:
        [row] = _run(driver, database, "schema_fact_belief_history", batch=batch)
        total += int(row["migrated"])
        if row["migrated"] < batch:
            return total


def schema_missing(driver: Driver, database: str) -> list[str]:
    """The indexes every search and write relies on that this database lacks (empty
    when ``apply_schema`` ran here): one ``SHOW INDEXES`` per index, no write."""
    names = (FULLTEXT_INDEX, VECTOR_INDEX)
    return [name for name in names if show_index(driver, database, name) is None]


def apply_schema(driver: Driver, database: str, dim: int) -> bool:
    """Create every constraint and index hmem needs; safe to run at every start. A
    fulltext index of an older hmem (another analyzer, or updated at commit) is made
    again: until it is online again, searches have no lexical candidates. So is a
    vector index of an older hmem (over every fact): the users big enough for it are
    then filled into the new one (``GraphStore.fill_vector_index``). Returns whether
    the vector index was made."""
    row = show_index(driver, database, VECTOR_INDEX)
    exists = row is not None
    if row is not None:
        _check_dimension(row, dim)
        # an older hmem's index, over every Fact rather than the big users' IndexedFacts
        if row.get("labelsOrTypes") not in (None, [VECTOR_LABEL]):
            _run(driver, database, "schema_fact_vector_drop")
            exists = False
    if _fulltext_outdated(driver, database):
        _run(driver, database, "schema_fact_fulltext_drop")
    _key_old_facts(driver, database)
    for name in SCHEMA_STATEMENTS:
        _run(driver, database, name)
    migrate_belief_history(driver, database)
    if not exists:
        # 2026.02+: with user_id as a filter property (the Cypher 25 text)
        stmt = catalog.statement("schema_fact_vector")
        c25 = filtered_search(server_version(driver, database))
        driver.execute_query(
            stmt.text_for(native=False, cypher25=c25), stmt.bind({"dim": dim}), database_=database
        )
    _run(driver, database, "schema_await")
    check_vector_index(driver, database, dim)
    return not exists
