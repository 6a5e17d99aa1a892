"""The accepted session as every queue backend hands it out: ``Job``, one record type
for the SQLite queue (``hmem.ingest.queue``) and the shared one
(``hmem.ingest.queue_redis``), so the ingestor and the pipeline never see which ran.

Lifecycle of a job::

    queued ──claim──► running ──► done
       ▲                 │
       │   retryable     ├──► queued (attempts+1, not before a backoff)
       └─── retry() ◄────┴──► failed (model output unusable, auth, attempts exhausted)

A worker that dies leaves its job ``running`` with an expired lease; the next claim
takes it again. Jobs of one user run strictly in ``observed_at`` order, one at a time,
so later facts close earlier ones. The extractor's answer is saved on the job before
anything is written, so a re-run never pays for a second model call.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = ["Job", "now_iso"]


@dataclass(frozen=True)
class Job:
    id: str
    user_id: str
    session_id: str | None
    observed_at: datetime
    source_text: str
    episode_text: str
    refused: list[str]
    ignored: int
    status: str
    attempts: int
    extraction: dict[str, Any] | None
    result: dict[str, Any] | None
    error: str | None
    created_at: datetime
    updated_at: datetime
    key_id: str | None = None  # the API key that accepted it (re-checked before writing)

    def public(self) -> dict[str, Any]:
        """What a caller may see of a job: status and ids, never the text."""
        return {
            "id": self.id,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "observed_at": self.observed_at.isoformat(),
            "status": self.status,
            "attempts": self.attempts,
            "result": self.result,
            "error": self.error,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }


def now_iso() -> str:
    """A job's timestamps: UTC, ISO 8601 (both backends store them as text)."""
    return datetime.now(UTC).isoformat()
