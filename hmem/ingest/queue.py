"""A durable job queue for accepted sessions, in one SQLite file (stdlib, WAL).

Why SQLite and not Neo4j: a session must be accepted even while Neo4j restarts, and
nothing accepted may be lost. The queue holds only what the write policy let through
(the user's allowed words) and the redacted episode, and only while it is needed: a
job's text (source, episode, the saved extraction, a failed model answer and the raw
session id) is dropped in the same statement that marks it ``done``; what stays is its
status, counts and ids. Idempotency keys are kept only as keyed hashes
(``hmem.secret.keyed_ref``), and so is the session id once the text is gone. Bytes
really leave the disk: ``secure_delete`` overwrites freed cells and pages, and the
write-ahead log is checkpointed and truncated after every drop (``_truncate_log``).
A fact's erasure reaches the queue too (``purge_fact``), and a user's (``purge_user``).

A job moves as ``hmem.ingest.job`` draws it; every backend keeps the same lifecycle.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hmem.errors import NotFoundError, QueueUnavailableError
from hmem.ingest.job import Job, now_iso
from hmem.secret import keyed_ref, load_secret

__all__ = ["Job", "JobQueue"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  session_id TEXT,
  idempotency_key TEXT NOT NULL,
  observed_at TEXT NOT NULL,
  source_text TEXT NOT NULL,
  episode_text TEXT NOT NULL,
  refused TEXT NOT NULL,
  ignored INTEGER NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  not_before REAL NOT NULL DEFAULT 0,
  lease_until REAL NOT NULL DEFAULT 0,
  extraction TEXT,
  result TEXT,
  error TEXT,
  raw_output TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  session_ref TEXT,
  key_id TEXT,
  UNIQUE (user_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS jobs_pick ON jobs (status, observed_at);
CREATE INDEX IF NOT EXISTS jobs_user ON jobs (user_id, status, observed_at);
"""

_CLAIM = """
SELECT id FROM jobs AS j
WHERE ((j.status = 'queued' AND j.not_before <= :now)
       OR (j.status = 'running' AND j.lease_until < :now))
  AND NOT EXISTS (
    SELECT 1 FROM jobs AS e
    WHERE e.user_id = j.user_id AND e.id != j.id
      AND (e.status = 'running' AND e.lease_until >= :now
           OR (e.status IN ('queued', 'running')
               AND (e.observed_at < j.observed_at
                    OR (e.observed_at = j.observed_at AND e.created_at < j.created_at)))))
ORDER BY j.observed_at, j.created_at
LIMIT 1
"""


class JobQueue:
    """Jobs in one SQLite file; safe across threads and processes on one host."""

    def __init__(
        self,
        path: Path | str,
        *,
        lease_s: float = 20.0,
        max_attempts: int = 5,
        secret: bytes | None = None,
    ) -> None:
        """``secret`` keys the hashes of idempotency keys and session ids (default: the
        server secret beside the queue, ``hmem.secret.load_secret``)."""
        self.path = Path(path)
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self._secret = secret if secret is not None else load_secret(None, self.path)
        self._local = threading.local()
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            self._upgrade(db)

    def _ref(self, purpose: str, value: str) -> str:
        return "h1:" + keyed_ref(self._secret, purpose, value)

    def _upgrade(self, db: sqlite3.Connection) -> None:
        """A queue file of an earlier hmem: add the new columns, hash its plain keys and
        session ids, and drop the text its finished jobs kept (then compact the file)."""
        columns = {row["name"] for row in db.execute("PRAGMA table_info(jobs)")}
        for column in ("session_ref", "key_id"):
            if column not in columns:
                db.execute(f"ALTER TABLE jobs ADD COLUMN {column} TEXT")  # names are ours
        db.create_function("hmem_ref", 2, self._ref, deterministic=True)
        changed = db.execute(
            "UPDATE jobs SET idempotency_key = hmem_ref('idempotency', idempotency_key) "
            "WHERE idempotency_key NOT LIKE 'h1:%'"
        ).rowcount
        changed += db.execute(
            "UPDATE jobs SET session_ref = hmem_ref('session', session_id) "
            "WHERE session_id IS NOT NULL AND session_ref IS NULL"
        ).rowcount
        changed += db.execute(
            f"UPDATE jobs SET {_DROP_TEXT} WHERE status = 'done' AND {_HOLDS_TEXT}"  # noqa: S608
        ).rowcount
        if changed:
            # secure_delete zeroed the old cells already; VACUUM also rewrites the pages
            # around them. Another process busy with the file: the next open does it.
            with contextlib.suppress(sqlite3.OperationalError):
                db.execute("VACUUM")
            _truncate_log(db)

    @contextmanager
    def _db(self, *, durable: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection of this thread (kept open: opening one costs more than a
        write). ``durable``: the commit is on disk before it returns (an fsync of the
        log); otherwise it survives a crash of any process but maybe not of the OS.

        Only accepting a session needs ``durable``: every later step can be lost to a
        power cut without losing or duplicating anything. A lost claim or retry leaves
        the job runnable again; a lost saved extraction costs one more model call; a
        lost ``done`` re-runs the job, which finds its episode in Neo4j (the graph write
        is one transaction, committed durably by Neo4j) and writes nothing twice."""
        db = self._local.__dict__.get("db")
        try:
            if db is None or self._local.pid != os.getpid():
                db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
                db.row_factory = sqlite3.Row
                db.execute("PRAGMA busy_timeout = 30000")
                db.execute("PRAGMA synchronous = NORMAL")
                # A deleted job's text is overwritten in the file, not left in a free page.
                db.execute("PRAGMA secure_delete = ON")
                self._local.db, self._local.pid = db, os.getpid()
            if durable:
                db.execute("PRAGMA synchronous = FULL")
        except sqlite3.OperationalError as exc:
            raise _unavailable(exc) from exc
        try:
            yield db
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF not in _TRANSIENT:
                raise
            raise _unavailable(exc) from exc
        finally:
            try:
                if db.in_transaction:  # an error between BEGIN and COMMIT
                    db.execute("ROLLBACK")
                if durable:
                    db.execute("PRAGMA synchronous = NORMAL")
            except sqlite3.Error:
                self.close()  # a connection in an unknown state is not kept

    def close(self) -> None:
        """Close this thread's connection (others close with their threads)."""
        db = self._local.__dict__.pop("db", None)
        if db is not None:
            db.close()

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
        """Accept a session durably. Returns (job, created); the same key (by default a
        digest of session, time and text) returns the job already accepted. Only a
        keyed hash of the key is stored. ``key_id``: the API key that accepted it."""
        # The default digest is the one earlier files stored plain (upgraded to the same
        # keyed hash when opened, so a resend still finds its job).
        key = self._ref(
            "idempotency",
            idempotency_key
            or hashlib.sha256(
                json.dumps([session_id, observed_at.isoformat(), episode_text]).encode()
            ).hexdigest(),
        )
        now = now_iso()
        job_id = uuid.uuid4().hex
        with self._db(durable=True) as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO jobs (id, user_id, session_id, session_ref, key_id, "
                "idempotency_key, observed_at, source_text, episode_text, refused, ignored, "
                "status, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?, 'queued', ?, ?)",
                (
                    job_id,
                    user_id,
                    session_id,
                    None if session_id is None else self._ref("session", session_id),
                    key_id,
                    key,
                    observed_at.astimezone(UTC).isoformat(),
                    source_text,
                    episode_text,
                    json.dumps(refused),
                    ignored,
                    now,
                    now,
                ),
            )
            created = cur.rowcount == 1
            row = db.execute(
                "SELECT * FROM jobs WHERE user_id = ? AND idempotency_key = ?", (user_id, key)
            ).fetchone()
        return _job(row), created

    # -- consuming --------------------------------------------------------------------
    def claim(self) -> Job | None:
        """Take the next runnable job (the earliest of a user with nothing running)."""
        now = time.time()
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute(_CLAIM, {"now": now}).fetchone()
                if row is None:
                    db.execute("COMMIT")
                    return None
                db.execute(
                    "UPDATE jobs SET status = 'running', lease_until = ?, "
                    "attempts = attempts + 1, updated_at = ? WHERE id = ?",
                    (now + self.lease_s, now_iso(), row["id"]),
                )
                job = db.execute("SELECT * FROM jobs WHERE id = ?", (row["id"],)).fetchone()
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return _job(job)

    def renew(self, job_id: str, attempt: int) -> bool:
        """Extend the lease of a job this worker still runs (claimed as ``attempt``): the
        heartbeat of ``Ingestor.run_job``, so a lease can be short and a dead worker's job
        is taken over within it. False when the job is no longer this run's (done,
        released, erased, or taken over after a lease ran out)."""
        with self._db() as db:
            cur = db.execute(
                "UPDATE jobs SET lease_until = ? "
                "WHERE id = ? AND status = 'running' AND attempts = ?",
                (time.time() + self.lease_s, job_id, attempt),
            )
        return cur.rowcount == 1

    def save_extraction(self, job_id: str, extraction: dict[str, Any]) -> None:
        self._update(job_id, extraction=json.dumps(extraction))

    def complete(self, job_id: str, result: dict[str, Any]) -> None:
        """Done: the result (ids and counts) stays, the session's text goes, from the
        file and its log. The graph holds what was written; a re-run (a lost ``done``)
        finds its episode there and needs no text (``Pipeline.process``)."""
        with self._db() as db:
            db.execute(
                f"UPDATE jobs SET status = 'done', result = ?, error = NULL, lease_until = 0, "  # noqa: S608
                f"updated_at = ?, {_DROP_TEXT} WHERE id = ?",
                (json.dumps(result), now_iso(), job_id),
            )
            _truncate_log(db)

    def fail(self, job_id: str, error: str, *, raw_output: str | None = None) -> None:
        self._update(job_id, status="failed", error=error, raw_output=raw_output, lease_until=0)

    def release(self, job_id: str, error: str, *, backoff_s: float, counted: bool = True) -> str:
        """A transient failure: back to the queue after ``backoff_s``, or failed when the
        attempts are used up. ``counted=False`` (the store was down: the job never got
        to run) gives the attempt back, so an outage of any length fails no job.
        Returns the new status."""
        try:
            job = self.get(job_id)
        except NotFoundError:
            return "erased"  # its user was erased while it ran
        if not counted:
            self._update(
                job_id,
                status="queued",
                error=error,
                attempts=max(0, job.attempts - 1),
                not_before=time.time() + backoff_s,
                lease_until=0,
            )
            return "queued"
        if job.attempts >= self.max_attempts:
            self.fail(job_id, f"gave up after {job.attempts} attempts: {error}")
            return "failed"
        self._update(
            job_id,
            status="queued",
            error=error,
            not_before=time.time() + backoff_s,
            lease_until=0,
        )
        return "queued"

    def retry(self, job_id: str, user_id: str | None = None) -> Job:
        """Put a failed job back in the queue (its saved extraction is dropped, so the
        model is asked again)."""
        job = self.get(job_id, user_id)
        if job.status != "failed":
            return job
        self._update(job_id, status="queued", attempts=0, not_before=0, extraction=None, error=None)
        return self.get(job_id)

    def _update(self, job_id: str, **fields: Any) -> None:
        fields["updated_at"] = now_iso()
        assignments = ", ".join(f"{name} = ?" for name in fields)  # names are ours
        with self._db() as db:
            db.execute(
                f"UPDATE jobs SET {assignments} WHERE id = ?",  # noqa: S608
                (*fields.values(), job_id),
            )

    # -- reading ----------------------------------------------------------------------
    def get(self, job_id: str, user_id: str | None = None) -> Job:
        with self._db() as db:
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None or (user_id is not None and row["user_id"] != user_id):
            raise NotFoundError(f"no job {job_id!r} for this user")
        return _job(row)

    def counts(self) -> dict[str, int]:
        with self._db() as db:
            rows = db.execute("SELECT status, count(*) AS n FROM jobs GROUP BY status").fetchall()
        return {r["status"]: r["n"] for r in rows}

    def pending(self) -> int:
        with self._db() as db:
            row = db.execute(
                "SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')"
            ).fetchone()
        return int(row["n"])

    def purge_fact(self, user_id: str, *, text: str, episode_ids: list[str]) -> int:
        """A fact was erased: no copy of its text may stay here. Returns how many jobs
        gave up their text.

        The jobs it came from (its episodes' ids are job ids) keep no text once done;
        one not done yet (its ``done`` lost to a crash) is marked done without its text:
        its write is in the graph, nothing is left to run. Any other job of the user that
        still holds the text (queued, running or failed, in its words, episode, saved
        extraction or failed model answer, compared casefolded; a model's paraphrase is
        not found this way), or that is the same session sent again (same session id),
        is failed and emptied: run later, it would write the erased fact again. Its
        other words go with it: a session is one unit, and the user asked for this
        one's content to be forgotten (retry it empty, or send the rest again)."""
        needle = text.casefold()
        mine = set(episode_ids)
        with self._db(durable=True) as db:
            marks = ",".join("?" * len(mine))
            sessions = {
                r["session_ref"]
                for r in db.execute(
                    f"SELECT session_ref FROM jobs WHERE id IN ({marks})",  # noqa: S608
                    tuple(mine),
                )
                if r["session_ref"] is not None
            }
            rows = db.execute(
                f"SELECT id, session_ref, source_text, episode_text, extraction, raw_output "  # noqa: S608
                f"FROM jobs WHERE user_id = ? AND {_HOLDS_TEXT}",
                (user_id,),
            ).fetchall()
            purged = 0
            for row in rows:
                held = " ".join(
                    str(row[c] or "")
                    for c in ("source_text", "episode_text", "extraction", "raw_output")
                ).casefold()
                if row["id"] in mine:
                    status, error = "done", None
                elif (needle and needle in held) or row["session_ref"] in sessions:
                    status = "failed"
                    error = "ErasedError: a fact this session held was erased; its text is gone"
                else:
                    continue
                db.execute(
                    f"UPDATE jobs SET status = ?, error = coalesce(?, error), lease_until = 0, "  # noqa: S608
                    f"updated_at = ?, {_DROP_TEXT} WHERE id = ?",
                    (status, error, now_iso(), row["id"]),
                )
                purged += 1
            if purged:
                _truncate_log(db)
        return purged

    def forget_fact_id(self, user_id: str, fact_id: str, ref: str) -> int:
        """An erased fact's id leaves the jobs' results (ids and counts that stay once a
        job is done: a session may have superseded or related a fact whose caller chose
        its id, and an id can carry text); ``ref`` (its keyed hash, as the audit keeps
        it) takes its place. Returns how many jobs named it."""
        quoted, quoted_ref = json.dumps(fact_id), json.dumps(ref)
        with self._db(durable=True) as db:
            cur = db.execute(
                "UPDATE jobs SET result = replace(result, ?, ?) "
                "WHERE user_id = ? AND instr(result, ?) > 0",
                (quoted, quoted_ref, user_id, quoted),
            )
            if cur.rowcount:
                _truncate_log(db)
        return cur.rowcount

    def purge_user(self, user_id: str) -> int:
        """Real erasure reaches the queue too: the user's jobs and their text go, from
        the file (secure_delete) and from the write-ahead log (checkpointed, truncated)."""
        with self._db(durable=True) as db:
            cur = db.execute("DELETE FROM jobs WHERE user_id = ?", (user_id,))
            _truncate_log(db)
        return cur.rowcount

    def discard(self, job_id: str) -> None:
        """Drop one job and its text (its user was erased after it was accepted)."""
        with self._db(durable=True) as db:
            db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))
            _truncate_log(db)


# A job's text: what it is dropped by, and what still holding some looks like.
_DROP_TEXT = (
    "source_text = '', episode_text = '', extraction = NULL, raw_output = NULL, session_id = NULL"
)
_HOLDS_TEXT = (
    "(source_text != '' OR episode_text != '' OR extraction IS NOT NULL "
    "OR raw_output IS NOT NULL OR session_id IS NOT NULL)"
)


def _truncate_log(db: sqlite3.Connection) -> None:
    """Copy the write-ahead log into the file and truncate it to zero bytes, so text
    dropped from the file does not live on in older log frames. A reader of another
    connection can hold the log for a moment (the busy timeout waits for it); one
    that holds it longer leaves the log as it is until the next drop truncates it."""
    for _ in range(3):
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            return


# SQLite's primary result codes for a disk or a lock, not a bug: BUSY, LOCKED, IOERR,
# FULL, CANTOPEN. A failed write rolls its transaction back: nothing half-accepted.
_TRANSIENT = frozenset({5, 6, 10, 13, 14})


def _unavailable(exc: sqlite3.OperationalError) -> QueueUnavailableError:
    name = getattr(exc, "sqlite_errorname", "") or type(exc).__name__
    return QueueUnavailableError(f"the job queue cannot write ({name}); retry later")


def _job(row: sqlite3.Row) -> Job:
    return Job(
        id=row["id"],
        user_id=row["user_id"],
        session_id=row["session_id"],
        observed_at=datetime.fromisoformat(row["observed_at"]),
        source_text=row["source_text"],
        episode_text=row["episode_text"],
        refused=json.loads(row["refused"]),
        ignored=row["ignored"],
        status=row["status"],
        attempts=row["attempts"],
        extraction=json.loads(row["extraction"]) if row["extraction"] else None,
        result=json.loads(row["result"]) if row["result"] else None,
        error=row["error"],
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        key_id=row["key_id"],
    )
