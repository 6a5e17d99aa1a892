"""Accepted sessions in a Redis server every API replica and ``hmem worker`` shares.

The same lifecycle and promises as the SQLite queue (``hmem/ingest/queue.py``), each
state change one server-side script, so it is atomic across any number of processes
and hosts, and timed by the server's clock (leases do not depend on hosts' clocks):

- ``job:<id>``: a hash, the job (the SQLite row's columns);
- ``idem:<user>:<keyed hash>``: the job a key accepted (only the keyed hash is stored);
- ``open:<user>``: the user's queued and running jobs, by ``observed_at`` (ids grow with
  time, so equal times keep arrival order);
- ``run:<user>``: the user's running job; ``ready``: users by the time their first open
  job may run (its backoff, or the lease of the one running: an expired lease is the
  takeover of a dead worker's job);
- ``jobs:<user>``: all the user's jobs (erasure); ``counts``: jobs by status.

Not a stream with a consumer group: a user's sessions run one at a time in ``observed_at``
order (a later fact closes an earlier one); ``docs/scaling.md`` says more.

Text leaves the server's memory in the script that marks a job done or erases it; it
leaves the disk (the append-only file) at the next rewrite, which erasure forces and
waits for, and which an idle ``claim`` requests after jobs were done. Text and session
ids are sealed, jobs signed (``hmem/ingest/job_seal.py``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, cast

import redis

from hmem.errors import NotFoundError, QueueUnavailableError
from hmem.ingest._queue_redis_script import SCRIPT
from hmem.ingest.job import Job, now_iso
from hmem.ingest.job_seal import REFUSED_RESULT, SEALED, TEXT, JobSeal
from hmem.secret import keyed_ref

__all__ = ["RedisQueue"]

log = logging.getLogger("hmem.ingest")


_ERASED = "ErasedError: a fact this session held was erased; its text is gone"


class RedisQueue:
    """The shared queue; one per process is plenty (the client pools connections)."""

    def __init__(
        self,
        url: str,
        *,
        lease_s: float = 20.0,
        max_attempts: int = 5,
        secret: bytes,
        prefix: str = "hmem:q:",
        forget_wait_s: float = 30.0,
    ) -> None:
        self.url = url
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self.prefix = prefix
        self.forget_wait_s = forget_wait_s
        self._secret = secret
        self._sealer = JobSeal(secret)
        self._redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=10, health_check_interval=30
        )
        self._script = self._redis.register_script(SCRIPT)
        self._dropped = False  # done jobs' text is still in the append-only file

    def _ref(self, purpose: str, value: str) -> str:
        return "h1:" + keyed_ref(self._secret, purpose, value)

    @contextmanager
    def _up(self) -> Iterator[None]:
        try:
            yield
        except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError) as exc:
            raise QueueUnavailableError(
                f"the shared job queue is unreachable ({type(exc).__name__}); retry later"
            ) from exc

    def _run(self, op: str, *args: Any) -> Any:
        with self._up():
            return self._script(args=[op, self.prefix, *args])

    def close(self) -> None:
        self._redis.close()

    # -- producing --------------------------------------------------------------------
    def submit(
        self,
        *,
        user_id: str,
        observed_at: datetime,
        source_text: str,
        episode_text: str,
        refused: list[str],
        ignored: int,
        session_id: str | None = None,
        idempotency_key: str | None = None,
        key_id: str | None = None,
    ) -> tuple[Job, bool]:
        """Accept a session (durable as the server's ``appendfsync`` makes it:
        ``always`` in the configuration ``scripts/redis`` starts)."""
        key = self._ref(
            "idempotency",
            idempotency_key
            or hashlib.sha256(
                json.dumps([session_id, observed_at.isoformat(), episode_text]).encode()
            ).hexdigest(),
        )
        observed = observed_at.astimezone(UTC)
        now = now_iso()
        # time-ordered ids: equal observed_at times run in arrival order
        job_id = f"{time.time_ns():016x}{uuid.uuid4().hex[:16]}"
        fields: dict[str, Any] = {
            "id": job_id,
            "user_id": user_id,
            "idempotency_key": key,
            "observed_at": observed.isoformat(),
            "score": repr(observed.timestamp()),
            "source_text": self._sealer.seal(job_id, "source_text", source_text),
            "episode_text": self._sealer.seal(job_id, "episode_text", episode_text),
            "refused": json.dumps(refused),
            "ignored": ignored,
            "attempts": 0,
            "not_before": 0,
            "lease_until": 0,
            "created_at": now,
            "updated_at": now,
        }
        if session_id is not None:
            fields["session_id"] = self._sealer.seal(job_id, "session_id", session_id)
            fields["session_ref"] = self._ref("session", session_id)
        if key_id is not None:
            fields["key_id"] = key_id
        fields["sig"] = self._sealer.signature(fields)
        pairs = [v for item in fields.items() for v in item]
        found, created = self._run("submit", user_id, key, job_id, fields["score"], *pairs)
        return self.get(str(found)), bool(int(created))

    # -- consuming --------------------------------------------------------------------
    def claim(self) -> Job | None:
        """Take the next runnable job (the earliest of a user with nothing running). A
        job that is not signed with the server secret, or an API user's job without
        its key, is failed without running (its text dropped), and the next one taken."""
        for _ in range(100):
            found = self._run("claim", repr(self.lease_s), now_iso())
            if not found:
                if self._dropped:
                    self._dropped = not self._rewrite(wait=False)
                return None
            row = self._row(str(found))
            if not row:  # erased between the claim and this read
                return None
            refusal = self._sealer.refusal(row)
            if refusal is None:
                return self._job(row)
            log.warning(
                "job %s refused: %s",
                found,
                refusal,
                extra={"job_id": str(found), "error": "RefusedJob"},
            )
            self._update(str(found), status="failed", drop=True, error=refusal)
            self._dropped = True
        return None

    def _update(
        self,
        job_id: str,
        *,
        status: str = "",
        backoff_s: float | None = None,
        drop: bool = False,
        delete: tuple[str, ...] = (),
        **fields: Any,
    ) -> bool:
        fields["updated_at"] = now_iso()
        pairs = [str(v) for item in fields.items() for v in item]
        done = self._run(
            "update",
            job_id,
            status,
            "" if backoff_s is None else repr(backoff_s),
            "1" if drop else "0",
            len(fields),
            *pairs,
            *delete,
        )
        return bool(done)

    def renew(self, job_id: str, attempt: int) -> bool:
        """Extend the lease of a job this worker still runs (claimed as ``attempt``), by
        the server's clock: the heartbeat of ``Ingestor.run_job``. False when the job is
        no longer this run's (done, released, erased, or taken over)."""
        return bool(self._run("renew", job_id, str(attempt), repr(self.lease_s)))

    def save_extraction(self, job_id: str, extraction: dict[str, Any]) -> None:
        self._update(
            job_id, extraction=self._sealer.seal(job_id, "extraction", json.dumps(extraction))
        )

    def complete(self, job_id: str, result: dict[str, Any]) -> None:
        """Done: the result (ids and counts) stays, the session's text goes."""
        text = json.dumps(result)
        self._update(
            job_id,
            status="done",
            drop=True,
            result=text,
            result_sig=self._sealer.result_signature(job_id, text),
            delete=("error",),
        )
        self._dropped = True

    def fail(self, job_id: str, error: str, *, raw_output: str | None = None) -> None:
        extra: dict[str, Any] = {}
        if raw_output is not None:
            extra["raw_output"] = self._sealer.seal(job_id, "raw_output", raw_output)
        self._update(job_id, status="failed", error=error, **extra)

    def release(self, job_id: str, error: str, *, backoff_s: float, counted: bool = True) -> str:
        """A transient failure: back to the queue after ``backoff_s``, or failed when the
        attempts are used up; ``counted=False`` gives the attempt back (the store was
        down: an outage of any length fails no job)."""
        try:
            job = self.get(job_id)
        except NotFoundError:
            return "erased"
        if not counted:
            self._update(
                job_id,
                status="queued",
                backoff_s=backoff_s,
                error=error,
                attempts=max(0, job.attempts - 1),
            )
            return "queued"
        if job.attempts >= self.max_attempts:
            self.fail(job_id, f"gave up after {job.attempts} attempts: {error}")
            return "failed"
        self._update(job_id, status="queued", backoff_s=backoff_s, error=error)
        return "queued"

    def retry(self, job_id: str, user_id: str | None = None) -> Job:
        """Put a failed job back in the queue (its saved extraction dropped)."""
        job = self.get(job_id, user_id)
        if job.status != "failed":
            return job
        self._update(
            job_id, status="queued", attempts=0, not_before=0, delete=("extraction", "error")
        )
        return self.get(job_id)

    # -- reading ----------------------------------------------------------------------
    def _row(self, job_id: str) -> dict[str, str]:
        with self._up():
            row = cast(dict[str, str], self._redis.hgetall(self.prefix + "job:" + job_id))
        return row

    def get(self, job_id: str, user_id: str | None = None) -> Job:
        row = self._row(job_id)
        if not row or (user_id is not None and row["user_id"] != user_id):
            raise NotFoundError(f"no job {job_id!r} for this user")
        return self._job(row)

    def _job(self, row: dict[str, str]) -> Job:
        """The job of a stored row, its sealed fields opened. A result whose signature
        does not hold (written by someone without the secret) is not answered: the job
        reads as failed, so no caller takes another write's ids for its own."""
        opened = {
            name: self._sealer.open(row["id"], name, row[name]) for name in SEALED if name in row
        }
        if not self._sealer.result_holds(row):
            opened.update(status="failed", result="", error=REFUSED_RESULT)
        return _job({**row, **opened})

    def counts(self) -> dict[str, int]:
        with self._up():
            raw = cast(dict[str, str], self._redis.hgetall(self.prefix + "counts"))
        return {status: int(n) for status, n in raw.items() if int(n) > 0}

    def pending(self) -> int:
        counts = self.counts()
        return counts.get("queued", 0) + counts.get("running", 0)

    # -- erasure ----------------------------------------------------------------------
    def _user_jobs(self, user_id: str) -> list[str]:
        with self._up():
            ids = cast(set[str], self._redis.smembers(self.prefix + "jobs:" + user_id))
        return sorted(ids)

    def purge_fact(self, user_id: str, *, text: str, episode_ids: list[str]) -> int:
        """A fact was erased: no copy of its text may stay (the rules of
        ``JobQueue.purge_fact``); the append-only file is rewritten before it returns."""
        needle = text.casefold()
        mine = set(episode_ids)
        rows = {job_id: self._row(job_id) for job_id in self._user_jobs(user_id)}
        sessions = {
            rows[j]["session_ref"] for j in mine if j in rows and rows[j].get("session_ref")
        }
        purged = 0
        for job_id, row in rows.items():
            held = " ".join(self._sealer.open(job_id, c, row.get(c, "")) for c in TEXT).casefold()
            if not held.strip() and not row.get("session_id"):
                continue
            if job_id in mine:
                self._update(job_id, status="done", drop=True)
            elif (needle and needle in held) or (
                row.get("session_ref") and row.get("session_ref") in sessions
            ):
                self._update(job_id, status="failed", drop=True, error=_ERASED)
            else:
                continue
            purged += 1
        if purged:
            self._rewrite(wait=True)
        return purged

    def forget_fact_id(self, user_id: str, fact_id: str, ref: str) -> int:
        """An erased fact's id leaves the jobs' results (the rules of
        ``JobQueue.forget_fact_id``); the append-only file is rewritten before it returns."""
        quoted, quoted_ref = json.dumps(fact_id), json.dumps(ref)
        named = 0
        for job_id in self._user_jobs(user_id):
            row = self._row(job_id)
            result = row.get("result", "")
            if quoted in result:
                text = result.replace(quoted, quoted_ref)
                # re-signed only if it held: an altered result stays refused
                signed = self._sealer.result_holds(row)
                sig = self._sealer.result_signature(job_id, text) if signed else ""
                self._update(job_id, result=text, result_sig=sig)
                named += 1
        if named:
            self._rewrite(wait=True)
        return named

    def purge_user(self, user_id: str) -> int:
        """The user's jobs and their text go, from memory and from the disk."""
        removed = int(self._run("remove", *self._user_jobs(user_id)))
        self._rewrite(wait=True)
        return removed

    def discard(self, job_id: str) -> None:
        self._run("remove", job_id)
        self._rewrite(wait=True)

    def _rewrite(self, *, wait: bool) -> bool:
        """Rewrite the append-only file, so dropped text does not live on in its older
        commands. Returns whether a rewrite began after the drop (``wait``: and ended)."""
        with self._up():
            deadline = time.monotonic() + self.forget_wait_s
            while True:
                info = self._redis.info("persistence")
                if not info.get("aof_enabled"):
                    return True  # nothing on disk to rewrite (or only snapshots: see docs)
                if not info.get("aof_rewrite_in_progress"):
                    try:
                        self._redis.bgrewriteaof()
                        break
                    except redis.ResponseError:
                        pass  # one began meanwhile: it may predate the drop, wait for it
                if not wait or time.monotonic() > deadline:
                    return False
                time.sleep(0.05)
            while wait and time.monotonic() < deadline:
                info = self._redis.info("persistence")
                if not info.get("aof_rewrite_in_progress") and not info.get(
                    "aof_rewrite_scheduled"
                ):
                    return True
                time.sleep(0.05)
        return not wait


def _job(row: dict[str, str]) -> Job:
    def opt(name: str) -> str | None:
        return row.get(name) or None

    return Job(
        id=row["id"],
        user_id=row["user_id"],
        session_id=opt("session_id"),
        observed_at=datetime.fromisoformat(row["observed_at"]),
        source_text=row.get("source_text", ""),
        episode_text=row.get("episode_text", ""),
        refused=json.loads(row.get("refused") or "[]"),
        ignored=int(row.get("ignored") or 0),
        status=row["status"],
        attempts=int(row.get("attempts") or 0),
        extraction=json.loads(row["extraction"]) if row.get("extraction") else None,
        result=json.loads(row["result"]) if row.get("result") else None,
        error=opt("error"),
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        key_id=opt("key_id"),
    )
