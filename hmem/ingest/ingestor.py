"""Accepting sessions and running them: ``Ingestor.add`` and the background worker.

``add`` applies the write policy, then accepts the session into the durable queue
*before* any model is asked: from then on, no crash, Neo4j restart or model outage
loses it. Synchronous mode runs the queue until this session is done; background mode
returns at once with the job id.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime

from hmem import errors
from hmem.errors import (
    HmemError,
    ModelOutputError,
    NotFoundError,
    RetryableError,
    StoreUnavailableError,
    TextTooLongError,
    UserErasedError,
    ValidationError,
)
from hmem.extract.policy import Message, apply_policy
from hmem.graph._records import check_user_id
from hmem.ingest.job import Job
from hmem.ingest.pipeline import AddResult, Pipeline
from hmem.ingest.queue_backend import QueueBackend
from hmem.models import MessagesIn, require_aware
from hmem.telemetry import Telemetry

__all__ = ["Ingestor", "MessagesIn", "accepting_key"]  # MessagesIn: hmem.models

log = logging.getLogger("hmem.ingest")

# The API key accepting the sessions submitted in this context (the HTTP route sets it):
# the job records it, and the worker checks it again before writing (``key_check``).
accepting_key: ContextVar[str | None] = ContextVar("hmem_accepting_key", default=None)


def to_messages(messages: MessagesIn) -> list[Message]:
    if isinstance(messages, str):
        return [Message(role="user", content=messages)]
    out: list[Message] = []
    for item in messages:
        if isinstance(item, Message):
            out.append(item)
        elif isinstance(item, dict):
            try:
                out.append(Message.model_validate(item))
            except Exception as exc:
                raise ValidationError(f"bad message {len(out)}: {exc}") from None
        else:
            raise ValidationError(f"message {len(out)} must be a dict or a Message")
    if not out:
        raise ValidationError("a session needs at least one message")
    return out


class Ingestor:
    """The write path's front door and its worker."""

    def __init__(
        self,
        queue: QueueBackend,
        pipeline: Pipeline,
        *,
        max_session_chars: int = 50_000,
        poll_s: float = 0.5,
        sync_timeout_s: float = 600.0,
        telemetry: Telemetry | None = None,
    ) -> None:
        self.telemetry = telemetry or Telemetry()
        self.queue = queue
        self.pipeline = pipeline
        self.max_session_chars = max_session_chars
        self.poll_s = poll_s
        self.sync_timeout_s = sync_timeout_s
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._listeners: list[Callable[[Job, AddResult], None]] = []
        # (key_id, user_id) -> None or KeyRevokedError: a job accepted by an API key
        # writes only while that key is valid (set by Memory, from the key store)
        self.key_check: Callable[[str, str], None] | None = None

    def add_listener(self, listener: Callable[[Job, AddResult], None]) -> None:
        """Called after every session that completes, in whatever thread ran it (the
        HTTP app counts its metrics here, for synchronous and background adds alike)."""
        self._listeners.append(listener)

    # -- accepting ----------------------------------------------------------------------
    def submit(
        self,
        messages: MessagesIn,
        *,
        user_id: str,
        observed_at: datetime | None = None,
        session_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[Job, bool]:
        user_id = check_user_id(user_id)
        observed = require_aware(observed_at, "observed_at") or datetime.now(UTC)
        msgs = to_messages(messages)
        size = sum(len(m.content) for m in msgs)
        if size > self.max_session_chars:
            raise TextTooLongError(
                f"the session has {size} characters; the limit is {self.max_session_chars}"
            )
        policy = apply_policy(msgs)
        return self.queue.submit(
            user_id=user_id,
            observed_at=observed,
            source_text=policy.source_text,
            episode_text=policy.episode_text,
            refused=policy.refused_kinds,
            ignored=policy.ignored_messages,
            session_id=session_id,
            idempotency_key=idempotency_key,
            key_id=accepting_key.get(),
        )

    def add(
        self,
        messages: MessagesIn,
        *,
        user_id: str,
        observed_at: datetime | None = None,
        session_id: str | None = None,
        background: bool = False,
        idempotency_key: str | None = None,
    ) -> AddResult:
        job, _ = self.submit(
            messages,
            user_id=user_id,
            observed_at=observed_at,
            session_id=session_id,
            idempotency_key=idempotency_key,
        )
        if background:
            return AddResult(job_id=job.id, status=job.status, refused=job.refused)
        return self.wait_for(job.id)

    def wait_for(self, job_id: str) -> AddResult:
        """Run the queue (in this thread) until ``job_id`` is done; raise its error if it
        fails. Earlier sessions of the same user run first. ``UserErasedError`` if the
        user was erased meanwhile (erasure takes the user's jobs with it)."""
        deadline = time.monotonic() + self.sync_timeout_s
        while True:
            try:
                job = self.queue.get(job_id)
            except NotFoundError:
                raise UserErasedError(
                    "the user was erased while this session was being processed; "
                    "nothing of it was stored"
                ) from None
            if job.status == "done" and job.result is not None:
                return AddResult.from_dict(job.result)
            if job.status == "failed":
                raise _failure(job)
            claimed = self.queue.claim()
            if claimed is not None:
                self.run_job(claimed, reraise=claimed.id == job_id)
                continue
            if time.monotonic() > deadline:
                raise RetryableError(f"session {job_id} is still {job.status}; see its job status")
            time.sleep(self.poll_s)

    # -- running ------------------------------------------------------------------------
    def run_job(self, job: Job, *, reraise: bool = False) -> AddResult | None:
        """Process one claimed job and record the outcome on it. While it runs, its
        lease is renewed (``_Heartbeat``), so a lease is short and the job of a worker
        that died (``kill -9``) is taken over within one lease, however slow a live
        worker's job is."""
        with (
            _Heartbeat(self.queue, job),
            self.telemetry.span(
                "job", user_id=job.user_id, hmem__job_id=job.id, hmem__attempt=job.attempts
            ) as span,
        ):
            result = self._run_job(job, reraise=reraise)
            if result is not None:
                span.set(hmem__added=len(result.added), hmem__superseded=len(result.superseded))
            return result

    def _run_job(self, job: Job, *, reraise: bool) -> AddResult | None:
        try:
            if job.key_id is not None and self.key_check is not None:
                # A key revoked after it queued this (even during an outage, when the
                # API trusted its cached grant to accept it) writes nothing.
                self.key_check(job.key_id, job.user_id)
            result = self.pipeline.process(
                job, lambda extraction: self.queue.save_extraction(job.id, extraction)
            )
        except UserErasedError:
            self.queue.discard(job.id)  # erasure won: the session's text goes too
            log.info("job %s dropped: its user was erased", job.id, extra={"job_id": job.id})
            if reraise:
                raise
            return None
        except RetryableError as exc:
            down = isinstance(exc, StoreUnavailableError)  # not the job's fault: not counted
            backoff = 2.0 if down else min(60.0, 2.0**job.attempts)
            status = self.queue.release(job.id, _describe(exc), backoff_s=backoff, counted=not down)
            log.warning(
                "job %s: %s, now %s",
                job.id,
                type(exc).__name__,
                status,
                extra={"job_id": job.id, "error": type(exc).__name__, "job_status": status},
            )
            if reraise:
                raise
            return None
        except ModelOutputError as exc:
            self.queue.fail(job.id, _describe(exc), raw_output=exc.raw)
            _log_failed(job, exc)
            if reraise:
                raise
            return None
        except Exception as exc:
            self.queue.fail(job.id, _describe(exc))
            _log_failed(job, exc)
            if reraise:
                raise
            return None
        # Observers first, then "done": whoever sees the job done also sees it counted.
        for listener in self._listeners:
            try:
                listener(job, result)
            except Exception:  # an observer must never fail a finished session
                log.exception("job listener failed")
        self.queue.complete(job.id, result.as_dict())
        return result

    def run_pending(self, max_jobs: int | None = None) -> int:
        """Process runnable jobs until none is left (or ``max_jobs``); returns how many."""
        done = 0
        while max_jobs is None or done < max_jobs:
            job = self.queue.claim()
            if job is None:
                break
            self.run_job(job)
            done += 1
        return done

    def start(self) -> None:
        """A background worker thread (one per process is plenty: the model is the wait)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="hmem-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                if self.run_pending(max_jobs=1) == 0:
                    self._stop.wait(self.poll_s)
            except Exception:  # the loop must outlive any one job's surprise
                log.exception("worker loop error")
                self._stop.wait(self.poll_s)


class _Heartbeat:
    """Renews a running job's lease every quarter lease until the job is settled: a
    renewal that fails once (the queue slow or briefly unreachable) leaves three more
    before the lease runs out. A renewal refused (the job is no longer this run's) ends
    the heartbeat; the run's outcome is then recorded as usual and is harmless (a
    re-run finds the session's episode in the graph and writes nothing twice)."""

    def __init__(self, queue: QueueBackend, job: Job) -> None:
        self._queue, self._job = queue, job
        self._every = max(0.05, queue.lease_s / 4)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="hmem-lease", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self._every):
            try:
                held = self._queue.renew(self._job.id, self._job.attempts)
            except Exception as exc:  # the next beat tries again
                log.warning(
                    "job %s: lease not renewed (%s)",
                    self._job.id,
                    type(exc).__name__,
                    extra={"job_id": self._job.id, "error": type(exc).__name__},
                )
                continue
            if not held:
                log.warning(
                    "job %s: its lease was lost (taken over or settled)",
                    self._job.id,
                    extra={"job_id": self._job.id},
                )
                return


def _failure(job: Job) -> HmemError:
    """The error a synchronous caller gets for its failed session: the kind recorded on
    the job (``_describe``, perhaps after "gave up after N attempts: "), so the answer
    does not depend on which thread happened to run it (a model outage is a 503 whether
    this request's thread or the background worker met it); an unknown kind stays a
    plain ``HmemError``."""
    message = f"session {job.id} failed: {job.error}"
    for name in re.findall(r"(\w+Error): ", job.error or "")[:1]:
        kind = getattr(errors, name, None)
        if (
            isinstance(kind, type)
            and issubclass(kind, HmemError)
            and kind.__init__ is Exception.__init__
        ):
            return kind(message)
    return HmemError(message)


def _describe(exc: BaseException) -> str:
    """Error text for the job record: the error kind and message, never memory text
    (hmem's messages carry ids and counts only)."""
    return f"{type(exc).__name__}: {exc}"[:500]


def _log_failed(job: Job, exc: Exception) -> None:
    name = type(exc).__name__
    log.warning("job %s failed: %s", job.id, name, extra={"job_id": job.id, "error": name})
