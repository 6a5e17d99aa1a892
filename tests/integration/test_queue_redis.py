"""The shared queue on a real Redis server (``scripts/test`` starts one and sets
``HMEM_TEST_REDIS_URL``): the SQLite queue's promises, kept across processes.

Each test has its own key prefix, so tests share one server without seeing each other.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hmem.errors import NotFoundError

redis = pytest.importorskip("redis", reason="the shared queue needs hmem[queue]")

from hmem.ingest.queue_redis import RedisQueue  # noqa: E402

pytestmark = pytest.mark.redis
SECRET = b"k" * 32


@pytest.fixture
def make_queue(redis_url: str) -> Iterator[type[RedisQueue]]:
    prefix = f"hmem:test:{uuid.uuid4().hex[:8]}:"
    made: list[RedisQueue] = []

    def make(**kwargs: object) -> RedisQueue:
        queue = RedisQueue(redis_url, secret=SECRET, prefix=prefix, **kwargs)  # type: ignore[arg-type]
        made.append(queue)
        return queue

    yield make  # type: ignore[misc]
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=prefix + "*"):
        client.delete(key)
    for queue in made:
        queue.close()


def _submit(queue: RedisQueue, user: str, day: int, text: str = "hi", **extra: str) -> str:
    job, _ = queue.submit(
        user_id=user,
        observed_at=datetime(2026, 1, day, tzinfo=UTC),
        source_text=text,
        episode_text=f"user: {text}",
        refused=[],
        ignored=0,
        **extra,  # type: ignore[arg-type]
    )
    return job.id


def _wait_claim(queue: RedisQueue, timeout_s: float = 30.0) -> object:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = queue.claim()
        if job is not None:
            return job
        time.sleep(0.02)
    raise AssertionError("no job became claimable")


def _on_disk(redis_url: str) -> bytes:
    """The server's append-only files, as its disk holds them."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    folder = Path(client.config_get("dir")["dir"])
    return b"".join(p.read_bytes() for p in folder.rglob("*.aof*") if p.is_file())


def test_orders_per_user_and_takes_over_a_dead_workers_job(make_queue: type[RedisQueue]) -> None:
    queue = make_queue(lease_s=0.3)
    other_worker = make_queue(lease_s=0.3)  # another process, on another host
    late = _submit(queue, "u1", 5, "late")
    early = _submit(queue, "u1", 2, "early")
    other = _submit(queue, "u2", 9)
    first = queue.claim()
    assert first is not None and first.id == early  # observed_at order, not arrival
    second = other_worker.claim()
    assert second is not None and second.id == other  # u1 is busy: u2 goes
    assert other_worker.claim() is None  # u1's later job waits for the earlier one
    again = _wait_claim(other_worker)  # the first worker died: its lease runs out
    assert again.id == early and again.attempts == 2  # type: ignore[attr-defined]
    other_worker.complete(early, {"added": ["f1"], "bookmarks": ["b1"]})
    nxt = other_worker.claim()
    assert nxt is not None and nxt.id == late
    done = queue.get(early)
    assert done.status == "done" and done.result == {"added": ["f1"], "bookmarks": ["b1"]}
    assert done.source_text == "" and done.episode_text == "" and done.extraction is None
    assert queue.counts() == {"done": 1, "running": 2}


def test_is_idempotent_across_replicas_and_erasable(
    make_queue: type[RedisQueue], redis_url: str
) -> None:
    a_replica, b_replica = make_queue(), make_queue()
    word = f"Zanzibar{uuid.uuid4().hex[:6]}"
    a = _submit(a_replica, "u1", 1, word, idempotency_key="k-1")
    b = _submit(b_replica, "u1", 3, "other words", idempotency_key="k-1")
    assert a == b and a_replica.counts() == {"queued": 1}
    with pytest.raises(NotFoundError):
        a_replica.get(a, user_id="u2")
    assert b"k-1" not in _on_disk(redis_url)  # only the keyed hash is stored
    assert word.encode() in _on_disk(redis_url)
    assert b_replica.purge_user("u1") == 1 and a_replica.counts() == {}
    assert word.encode() not in _on_disk(redis_url)  # gone from the disk too
    assert a_replica.claim() is None


def test_backs_off_then_dead_letters_then_retries(make_queue: type[RedisQueue]) -> None:
    queue = make_queue(max_attempts=2)
    job_id = _submit(queue, "u1", 1)
    assert queue.claim() is not None
    assert queue.release(job_id, "ModelUnavailableError: 503", backoff_s=60) == "queued"
    assert queue.claim() is None  # backing off
    queue._update(job_id, not_before=0)
    assert queue.claim() is not None
    assert queue.release(job_id, "ModelUnavailableError: 503", backoff_s=0) == "failed"
    failed = queue.get(job_id)
    assert failed.status == "failed" and "gave up after 2" in (failed.error or "")
    assert queue.retry(job_id).status == "queued"
    assert queue.claim() is not None  # the dead letter runs again
    assert queue.release(job_id, "StoreUnavailableError", backoff_s=0, counted=False) == "queued"
    assert queue.get(job_id).attempts == 0  # an outage costs no attempt


def test_fact_erasure_empties_the_jobs_that_hold_it(
    make_queue: type[RedisQueue], redis_url: str
) -> None:
    queue = make_queue()
    word = f"Quokka{uuid.uuid4().hex[:6]}"
    source = _submit(queue, "u1", 1, f"I met {word}", session_id="s1")
    resend = _submit(queue, "u1", 2, "same session again", session_id="s1")
    holder = _submit(queue, "u1", 3, f"{word} again")
    bystander = _submit(queue, "u1", 4, "unrelated")
    job = queue.claim()
    assert job is not None and job.id == source
    queue.save_extraction(source, {"facts": [word]})
    assert queue.purge_fact("u1", text=word, episode_ids=[source]) == 3
    assert queue.get(source).status == "done"
    assert queue.get(resend).status == "failed" and queue.get(holder).status == "failed"
    assert queue.get(bystander).status == "queued"
    assert word.encode() not in _on_disk(redis_url)
    nxt = queue.claim()
    assert nxt is not None and nxt.id == bystander  # the emptied ones never run


def test_an_erased_facts_id_leaves_the_done_jobs_results(
    make_queue: type[RedisQueue], redis_url: str
) -> None:
    queue = make_queue()
    fact_id = f"caller-chose-{uuid.uuid4().hex[:6]}"
    named = _submit(queue, "u1", 1, "a session that superseded it")
    other = _submit(queue, "u1", 2, "one that did not")
    for job_id in (named, other):
        assert _wait_claim(queue) is not None
        result = {"superseded": [fact_id]} if job_id == named else {"added": ["f9"]}
        queue.complete(job_id, result)
    assert fact_id.encode() in _on_disk(redis_url)
    assert queue.forget_fact_id("u1", fact_id, "h1:ref") == 1
    assert queue.get(named).result == {"superseded": ["h1:ref"]}
    assert queue.get(other).result == {"added": ["f9"]}
    assert fact_id.encode() not in _on_disk(redis_url)  # the file was rewritten


def test_an_unreachable_server_is_a_retryable_error() -> None:
    from hmem.errors import QueueUnavailableError

    queue = RedisQueue("redis://127.0.0.1:9/0", secret=SECRET)
    with pytest.raises(QueueUnavailableError):
        _submit(queue, "u1", 1)
