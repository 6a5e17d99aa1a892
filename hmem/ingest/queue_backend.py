"""The seam between the write path and where accepted sessions wait.

Two backends keep the same promises (idempotency keys stored as keyed hashes, leases,
retries with backoff, a dead-letter ``failed`` state with its error, a user's jobs one
at a time in ``observed_at`` order, text dropped when done and on erasure):

- ``JobQueue`` (``hmem/ingest/queue.py``): one SQLite file, the one-host default;
- ``RedisQueue`` (``hmem/ingest/queue_redis.py``): a Redis server every API replica and
  ``hmem worker`` shares, chosen by ``HMEM_QUEUE_URL=redis://…`` (docs/scaling.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol
from urllib.parse import urlsplit

from hmem.config import Config
from hmem.errors import ConfigError
from hmem.ingest.job import Job
from hmem.ingest.queue import JobQueue

__all__ = ["QueueBackend", "open_queue"]


class QueueBackend(Protocol):
    """What ``Ingestor`` and ``Memory`` use of a queue."""

    lease_s: float

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
    ) -> tuple[Job, bool]: ...

    def claim(self) -> Job | None: ...

    def renew(self, job_id: str, attempt: int) -> bool: ...

    def save_extraction(self, job_id: str, extraction: dict[str, Any]) -> None: ...

    def complete(self, job_id: str, result: dict[str, Any]) -> None: ...

    def fail(self, job_id: str, error: str, *, raw_output: str | None = None) -> None: ...

    def release(
        self, job_id: str, error: str, *, backoff_s: float, counted: bool = True
    ) -> str: ...

    def retry(self, job_id: str, user_id: str | None = None) -> Job: ...

    def get(self, job_id: str, user_id: str | None = None) -> Job: ...

    def counts(self) -> dict[str, int]: ...

    def pending(self) -> int: ...

    def purge_fact(self, user_id: str, *, text: str, episode_ids: list[str]) -> int: ...

    def forget_fact_id(self, user_id: str, fact_id: str, ref: str) -> int: ...

    def purge_user(self, user_id: str) -> int: ...

    def discard(self, job_id: str) -> None: ...

    def close(self) -> None: ...


def open_queue(config: Config, secret: bytes) -> QueueBackend:
    """The queue ``config`` names: Redis when ``queue_url`` is set, else SQLite."""
    if not config.queue_url:
        return JobQueue(
            config.queue_path,
            lease_s=config.job_lease_s,
            max_attempts=config.job_max_attempts,
            secret=secret,
        )
    if config.server_secret is None:
        # Every replica must hash an idempotency key the same way, or a resend through
        # another replica would be accepted twice.
        raise ConfigError("a shared queue (HMEM_QUEUE_URL) needs HMEM_SERVER_SECRET on every host")
    parts = urlsplit(config.queue_url)
    if not parts.password and not config.queue_private:
        # Anyone who reaches an open Redis reads the queued sessions' ids and pushes
        # jobs; a job is signed (the worker refuses others), but the server must not be
        # open in the first place.
        raise ConfigError(
            "the shared queue's Redis needs a password (HMEM_QUEUE_URL="
            "redis://:<password>@host:6379/0, and requirepass on the server); set "
            "HMEM_QUEUE_PRIVATE=true only for a socket no one else can reach"
        )
    from hmem.ingest.queue_redis import RedisQueue

    return RedisQueue(
        config.queue_url,
        lease_s=config.job_lease_s,
        max_attempts=config.job_max_attempts,
        secret=secret,
    )
