"""hmem's schema on a Neo4j hmem has not set up (issue 49 item 10): the first
``remember`` or ``search`` from Python sets it up, idempotently, also when two processes
start together; nobody has to know about ``init_schema()`` first.

The test database is stripped of every constraint and index (what a fresh server, the
user's own or Aura has) and the code under test puts them back.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path

from neo4j import Driver

from hmem import Config, Memory
from hmem.graph.schema import FULLTEXT_INDEX, VECTOR_INDEX, schema_missing

ROOT = Path(__file__).parents[2]
DAY = datetime(2026, 3, 1, 9, tzinfo=UTC)


def _strip_schema(driver: Driver, database: str) -> None:
    """Drop every constraint and index but the built-in token lookups."""
    names, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name", database_=database)
    for row in names:
        driver.execute_query(f"DROP CONSTRAINT `{row['name']}` IF EXISTS", database_=database)
    names, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name", database_=database
    )
    for row in names:
        driver.execute_query(f"DROP INDEX `{row['name']}` IF EXISTS", database_=database)
    assert set(schema_missing(driver, database)) == {FULLTEXT_INDEX, VECTOR_INDEX}


def test_first_remember_and_search_set_up_the_schema(config: Config, driver: Driver) -> None:
    _strip_schema(driver, config.neo4j_database)
    user = f"fresh-{uuid.uuid4().hex[:12]}"
    with Memory(config) as memory:  # no init_schema(): what a newcomer writes
        try:
            added = memory.remember(
                "Ana keeps bees on her balcony.", user_id=user, observed_at=DAY, entities=["Ana"]
            )
            assert len(added.added) == 1
            hits = memory.search("Does Ana keep bees?", user_id=user).hits
            assert [h.fact.text for h in hits] == ["Ana keeps bees on her balcony."]
            assert schema_missing(driver, config.neo4j_database) == []
        finally:
            memory.erase_user(user)


def test_a_search_first_sets_up_the_schema_too(config: Config, driver: Driver) -> None:
    _strip_schema(driver, config.neo4j_database)
    with Memory(config) as memory:
        assert memory.search("anything at all?", user_id=f"fresh-{uuid.uuid4().hex[:8]}").hits == []
    assert schema_missing(driver, config.neo4j_database) == []


def test_two_memories_starting_together_both_write(config: Config, driver: Driver) -> None:
    _strip_schema(driver, config.neo4j_database)
    users = [f"race-{uuid.uuid4().hex[:10]}" for _ in range(2)]
    memories = [Memory(config) for _ in users]
    start = threading.Barrier(len(users))
    errors: list[BaseException] = []

    def first_write(memory: Memory, user: str) -> None:
        start.wait()
        try:
            memory.remember("Ana's bees swarmed in May.", user_id=user, observed_at=DAY)
        except BaseException as exc:  # reported below, with the thread's user
            errors.append(exc)

    threads = [
        threading.Thread(target=first_write, args=pair)
        for pair in zip(memories, users, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    try:
        assert errors == []
        for memory, user in zip(memories, users, strict=True):
            assert [f.text for f in memory.facts(user_id=user)] == ["Ana's bees swarmed in May."]
    finally:
        for memory, user in zip(memories, users, strict=True):
            memory.erase_user(user)
            memory.shutdown()


def test_two_processes_starting_together_on_a_fresh_database(
    config: Config, driver: Driver, tmp_path: Path
) -> None:
    """Two Python processes, each its first ``remember``, on a database with no schema."""
    _strip_schema(driver, config.neo4j_database)
    users = [f"proc-{uuid.uuid4().hex[:10]}" for _ in range(2)]
    go = tmp_path / "go"
    script = (
        "import sys, time, pathlib\n"
        "from datetime import datetime, timezone\n"
        "from hmem import Config, Memory\n"
        "with Memory(Config()) as m:\n"
        f"    while not pathlib.Path({str(go)!r}).exists(): time.sleep(0.01)\n"
        "    m.remember('Ana sells honey.', user_id=sys.argv[1],\n"
        "               observed_at=datetime(2026, 3, 1, tzinfo=timezone.utc))\n"
        "    print(len(m.facts(user_id=sys.argv[1])))\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, user],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for user in users
    ]
    go.write_text("")
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, err[-3000:]
            assert out.strip() == "1"
    finally:
        with Memory(config, driver=driver) as memory:
            for user in users:
                memory.erase_user(user)
    assert schema_missing(driver, config.neo4j_database) == []
