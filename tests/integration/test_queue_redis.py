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
    assert word.encode() not in _on_disk(redis_url)  # the text is sealed at rest
    assert a_replica.get(a).source_text == word  # and opens with the secret
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


def _raw(redis_url: str, queue: RedisQueue, job_id: str) -> dict[bytes, bytes]:
    client = redis.Redis.from_url(redis_url)
    return client.hgetall(queue.prefix + "job:" + job_id)  # type: ignore[return-value]


def test_the_server_needs_its_password(redis_url: str) -> None:
    """N4: the Redis scripts/redis starts refuses a client without its password, and
    hmem refuses to open a shared queue whose URL has none."""
    from urllib.parse import urlsplit

    from hmem.config import Config
    from hmem.errors import ConfigError
    from hmem.ingest.queue_backend import open_queue

    parts = urlsplit(redis_url)
    assert parts.password, "scripts/redis gives its URL with the password"
    bare = f"redis://{parts.hostname}:{parts.port}/0"
    with pytest.raises(redis.AuthenticationError):
        redis.Redis.from_url(bare).ping()
    with pytest.raises(redis.AuthenticationError):
        redis.Redis.from_url(f"redis://:wrong@{parts.hostname}:{parts.port}/0").ping()
    with pytest.raises(ConfigError, match="password"):
        open_queue(Config(queue_url=bare, server_secret="s" * 32), SECRET)
    private = open_queue(Config(queue_url=bare, server_secret="s" * 32, queue_private=True), SECRET)
    private.close()  # told it is a private socket: opened (this one would not authenticate)
    shared = open_queue(Config(queue_url=redis_url, server_secret="s" * 32), SECRET)
    assert isinstance(shared, RedisQueue) and isinstance(shared.counts(), dict)
    shared.close()


def test_queued_text_session_and_key_are_sealed_at_rest(
    make_queue: type[RedisQueue], redis_url: str
) -> None:
    """N5: what a reader of the server sees of a queued job: no text, no session id."""
    queue = make_queue()
    word = f"Okapi{uuid.uuid4().hex[:6]}"
    session = f"session-{uuid.uuid4().hex[:6]}"
    job_id = _submit(queue, "acme:u1", 1, f"I saw an {word}", session_id=session, key_id="k1")
    raw = b" ".join(k + b"=" + v for k, v in _raw(redis_url, queue, job_id).items())
    assert word.encode() not in raw and session.encode() not in raw
    assert word.encode() not in _on_disk(redis_url) and session.encode() not in _on_disk(redis_url)
    job = queue.claim()
    assert job is not None and job.source_text == f"I saw an {word}" and job.session_id == session
    queue.save_extraction(job_id, {"facts": [word]})
    assert word.encode() not in b" ".join(_raw(redis_url, queue, job_id).values())
    assert queue.get(job_id).extraction == {"facts": [word]}
    # done: the sealed text leaves the server at once, and its disk at the next idle
    # claim's rewrite (measured here: the seconds until the file no longer holds it)
    sealed = _raw(redis_url, queue, job_id)[b"source_text"]
    assert sealed in _on_disk(redis_url)
    queue.complete(job_id, {"added": ["f1"]})
    assert _raw(redis_url, queue, job_id)[b"source_text"] == b""
    started = time.monotonic()
    while sealed in _on_disk(redis_url):
        assert queue.claim() is None
        assert time.monotonic() - started < 30, "the append-only file kept the text"
        time.sleep(0.05)
    print(f"done job's sealed text left the disk after {time.monotonic() - started:.2f} s")


def test_the_worker_refuses_unsigned_altered_and_keyless_jobs(
    make_queue: type[RedisQueue], redis_url: str
) -> None:
    """N4: a job pushed straight into the server (no secret), one whose user was
    changed, and an API user's job without its key are failed, never run."""
    queue = make_queue()
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    # pushed by someone with the password but not the secret: the submit script by hand
    forged_id = f"{time.time_ns():016x}{uuid.uuid4().hex[:16]}"
    fields = {
        "id": forged_id,
        "user_id": "acme:victim",
        "idempotency_key": "h1:x",
        "observed_at": "2026-01-01T00:00:00+00:00",
        "score": "1767225600.0",
        "source_text": "Victim moved to Mars.",
        "episode_text": "user: Victim moved to Mars.",
        "refused": "[]",
        "ignored": "0",
        "attempts": "0",
        "not_before": "0",
        "lease_until": "0",
        "created_at": "2026-01-01T00:00:00+00:00",
        "updated_at": "2026-01-01T00:00:00+00:00",
    }
    pairs = [v for item in fields.items() for v in item]
    queue._run("submit", "acme:victim", "h1:x", forged_id, fields["score"], *pairs)
    # altered: an honest job's text replaced by hand
    moved = _submit(queue, "acme:mine", 2, "Mine likes tea.", key_id="k1")
    client.hset(queue.prefix + "job:" + moved, "source_text", "Mine moved to Mars.")
    # keyless: an API user's job without the key that accepted it
    keyless = _submit(queue, "acme:victim", 3, "Victim likes tea.")
    honest = _submit(queue, "acme:other", 4, "Other likes tea.", key_id="k2")
    claimed = _wait_claim(queue)
    assert getattr(claimed, "id", None) == honest  # the only one that runs
    assert queue.claim() is None
    for job_id, why in ((forged_id, "signed"), (moved, "signed"), (keyless, "API key")):
        refused = queue.get(job_id)
        assert refused.status == "failed" and why in (refused.error or ""), refused.error
        assert refused.source_text == ""  # its text dropped with it


def test_a_finished_jobs_result_is_signed(make_queue: type[RedisQueue], redis_url: str) -> None:
    """A result written into the server by someone without the secret (another write's
    ids, or made-up ones) is never answered as the job's: the job reads as failed."""
    from hmem.ingest.job_seal import REFUSED_RESULT

    queue = make_queue()
    job_id = _submit(queue, "u1", 1)
    assert queue.claim() is not None
    queue.complete(job_id, {"added": ["f1"]})
    assert queue.get(job_id).result == {"added": ["f1"]}
    client = redis.Redis.from_url(redis_url)
    key = queue.prefix + "job:" + job_id
    client.hset(key, "result", '{"added": ["someone-elses-fact"]}')
    forged = queue.get(job_id)
    assert forged.status == "failed" and forged.result is None
    assert forged.error == REFUSED_RESULT
    client.hdel(key, "result_sig")  # and a result without a signature
    client.hset(key, "result", '{"added": ["f1"]}')
    assert queue.get(job_id).result is None
