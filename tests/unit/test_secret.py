"""The server secret: configured, or made once beside the queue and shared from then."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

from hmem.ingest.queue import JobQueue
from hmem.secret import keyed_ref, load_secret, secret_file


def test_a_configured_secret_wins_and_none_is_written(tmp_path: Path) -> None:
    queue = tmp_path / "q" / "queue.sqlite3"
    assert load_secret("from-the-environment", queue) == b"from-the-environment"
    assert not (tmp_path / "q").exists()


def test_the_generated_secret_is_private_and_stable(tmp_path: Path) -> None:
    queue = tmp_path / "queue.sqlite3"
    first = load_secret(None, queue)
    path = secret_file(queue)
    assert path is not None and path.parent == tmp_path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_secret(None, queue) == first and len(first) == 64
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
    assert secret_file(":memory:") is None
    assert load_secret(None, ":memory:") != load_secret(None, ":memory:")


def test_keyed_refs_depend_on_the_secret_and_the_purpose() -> None:
    plain = hashlib.sha256(b"acme:maya").hexdigest()
    refs = {
        keyed_ref(b"one", "otel-user", "acme:maya"),
        keyed_ref(b"two", "otel-user", "acme:maya"),
        keyed_ref(b"one", "session", "acme:maya"),
    }
    assert len(refs) == 3 and plain not in refs


def test_the_queue_stores_keys_hashed_and_finds_a_resend(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    queue = JobQueue(tmp_path / "queue.sqlite3", secret=b"s" * 32)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    args = {
        "user_id": "u",
        "observed_at": when,
        "source_text": "hello",
        "episode_text": "user: hello",
        "refused": [],
        "ignored": 0,
        "session_id": "sess-plain",
        "idempotency_key": "key-plain",
        "key_id": "abc123",
    }
    job, created = queue.submit(**args)  # type: ignore[arg-type]
    again, created_again = queue.submit(**args)  # type: ignore[arg-type]
    assert created and not created_again and again.id == job.id
    assert job.key_id == "abc123" and job.session_id == "sess-plain"
    queue.complete(job.id, {"job_id": job.id, "added": ["f1"]})
    done = queue.get(job.id)
    assert (done.source_text, done.episode_text, done.session_id) == ("", "", None)
    assert done.result == {"job_id": job.id, "added": ["f1"]}
    queue.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("queue.sqlite3*"))
    for word in (b"hello", b"sess-plain", b"key-plain"):
        assert word not in raw, word
