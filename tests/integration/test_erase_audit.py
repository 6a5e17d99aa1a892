"""Issue 32, D14: an erased fact leaves no caller string anywhere.

A fact written with caller-chosen strings (its id, source, speaker) and one from a
queued session (its session id, idempotency key), both named in later audit events
(a supersession, a restore), are erased; then every property of every node and
relationship of the user, the audit trail, the queue file and its WAL, and the log
records are scanned for those strings. The audit keeps the events, with the keyed ref
a Graphiti sync recomputes (``GraphStore.fact_ref``) in place of each id.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from hmem import Config, Memory
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.test_write_path import fact, model_config, related

FACT_ID = "zqxfactid_gone"  # a word: the fake model reads ids as \w+
SOURCE = "zqxsource-gone"
SPEAKER = "Zqxspeaker"
SESSION = "zqxsess-gone"
IDEMPOTENCY = "zqxidem-gone"
CALLER = (FACT_ID, SOURCE, SPEAKER, SESSION, IDEMPOTENCY)


@pytest.fixture
def mem(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> Iterator[Memory]:
    cfg = model_config(config, fake_openai, tmp_path / "queue.sqlite3", embed_provider="none")
    memory = Memory(cfg, driver=driver)
    yield memory
    memory.shutdown()


def _graph_text(driver: Driver, user_id: str) -> str:
    """Every property of every node of the user and of every relationship touching one,
    as one casefolded string."""
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE n.user_id = $uid "
        "OPTIONAL MATCH (n)-[r]-() "
        "RETURN collect(DISTINCT properties(n)) AS nodes, collect(DISTINCT properties(r)) AS rels",
        uid=user_id,
    )
    [row] = records
    return json.dumps([row["nodes"], row["rels"]], default=str).casefold()


def _queue_bytes(queue: Path) -> bytes:
    return b"".join(p.read_bytes() for p in queue.parent.glob(queue.name + "*")).lower()


def test_an_erased_fact_leaves_no_caller_string(
    mem: Memory,
    driver: Driver,
    fake_openai: FakeOpenAIServer,
    user_id: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="hmem")
    fake_openai.queue_chat({"facts": [fact("Maya adopted a cat.")]})
    session = mem.add(
        [{"role": "user", "content": "I adopted a cat."}],
        user_id=user_id,
        session_id=SESSION,
        idempotency_key=IDEMPOTENCY,
        background=True,
    )
    assert mem.run_jobs() == 1
    done = mem.job(session.job_id, user_id=user_id).result
    assert done is not None
    [from_session] = done["added"]
    mem.remember(
        "Maya keeps her bike in the blue shed.",
        user_id=user_id,
        fact_id=FACT_ID,
        source=SOURCE,
        speaker=SPEAKER,
        infer=False,
    )
    # a session the model relates to it: the done job's result keeps the id
    fake_openai.queue_chat(
        related("Maya bought a bike lock.", "Maya keeps her bike in the blue shed.", "relates")
    )
    lock = mem.add([{"role": "user", "content": "I bought a lock."}], user_id=user_id)
    assert [b for _, b in lock.related] == [FACT_ID]
    kept = mem.remember("Maya lives in Oslo.", user_id=user_id, infer=False).added[0]
    moved = mem.remember(
        "Maya keeps her bike in the garage.", user_id=user_id, supersedes=[FACT_ID]
    ).added[0]
    mem.restore(FACT_ID, user_id=user_id)  # the restore event keeps the undone edge
    before = [e for e in mem.audit(user_id=user_id) if FACT_ID in json.dumps(e, default=str)]
    assert {e["op"] for e in before} >= {"write", "restore"}  # the trail did name it

    mem.erase(FACT_ID, user_id=user_id)
    mem.erase(from_session, user_id=user_id)

    graph = _graph_text(driver, user_id)
    audit = json.dumps(mem.audit(user_id=user_id, limit=1_000), default=str).casefold()
    queue = _queue_bytes(mem.config.queue_path)
    logs = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("hmem"))
    logs = logs.casefold()
    for caller in CALLER:
        needle = caller.casefold()
        assert needle not in graph, caller
        assert needle not in audit, caller
        assert needle.encode() not in queue, caller
        assert needle not in logs, caller
    # the events stay, each id replaced by its keyed ref, which the sync recomputes
    ref = mem.store.fact_ref(user_id, FACT_ID)
    after = [
        e for e in mem.audit(user_id=user_id, limit=1_000) if ref in json.dumps(e, default=str)
    ]
    assert sorted(e["op"] for e in after) == sorted([*(e["op"] for e in before), "erase_fact"])
    assert mem.store.erased_fact_refs(user_id) == {ref, mem.store.fact_ref(user_id, from_session)}
    assert ref != mem.store.fact_ref(user_id + "-other", FACT_ID)  # per user
    # the surviving facts and their ids are untouched
    assert {f.id for f in mem.facts(user_id=user_id)} == {kept, moved, *lock.added}
    assert moved in audit and kept in audit
