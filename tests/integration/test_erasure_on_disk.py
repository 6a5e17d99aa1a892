"""Erased text leaves Neo4j's transaction logs: the local server keeps no log beyond what
recovery needs (hmem.localdb.TX_LOG_SETTINGS), so once the log rotates and a checkpoint
prunes it, the erased words are in no transaction log file."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from neo4j import Driver

from hmem import Config, Memory

FILLER = "filler text that makes the transaction log rotate " * 4_000  # ~200 KB


def _holding(folder: Path, token: bytes) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file() and token in p.read_bytes())


def test_erased_text_leaves_the_transaction_logs(
    memory: Memory, config: Config, driver: Driver, user_id: str
) -> None:
    logs = Path(config.neo4j_home) / "data" / "transactions"
    conf = Path(config.neo4j_home) / "conf" / "neo4j.conf"
    if not logs.is_dir() or "retention_policy=keep_none" not in conf.read_text():
        pytest.skip("needs hmem's local server (hmem neo4j start), as scripts/test runs")
    token = f"zq{uuid.uuid4().hex}"
    memory.remember(
        f"Maya's favourite bakery in Porto is called {token} and opens at seven.",
        user_id=user_id,
    )
    assert _holding(logs, token.encode())  # written: it is in the current log
    memory.erase_user(user_id)

    deadline = time.monotonic() + 600  # a checkpoint comes at least once a minute
    written = 0
    while found := _holding(logs, token.encode()):
        assert time.monotonic() < deadline, f"still in {found}"
        if written < 4_000_000:  # rotate past db.tx_log.rotation.size (1M) a few times
            records, _, _ = driver.execute_query(
                "CREATE (n:TxLogFiller {text: $text}) RETURN elementId(n) AS id", text=FILLER
            )
            driver.execute_query(
                "MATCH (n:TxLogFiller) WHERE elementId(n) = $id DELETE n", id=records[0]["id"]
            )
            written += len(FILLER)
        else:
            time.sleep(1)
