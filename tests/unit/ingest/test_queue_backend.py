"""The queue seam: one setting picks the backend; a shared one needs the shared secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from hmem.config import Config
from hmem.errors import ConfigError
from hmem.ingest.queue import JobQueue
from hmem.ingest.queue_backend import open_queue


def test_sqlite_when_no_queue_url(tmp_path: Path) -> None:
    queue = open_queue(Config(queue_path=tmp_path / "q.sqlite3"), b"k" * 32)
    assert isinstance(queue, JobQueue) and queue.path == tmp_path / "q.sqlite3"
    queue.close()


def test_a_shared_queue_refuses_to_start_without_the_shared_secret(tmp_path: Path) -> None:
    config = Config(queue_path=tmp_path / "q.sqlite3", queue_url="redis://127.0.0.1:1/0")
    with pytest.raises(ConfigError, match="HMEM_SERVER_SECRET"):
        open_queue(config, b"k" * 32)
