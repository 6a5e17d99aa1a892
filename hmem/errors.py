"""The one error tree of hmem.

Every error hmem raises on purpose is an ``HmemError``. Retryable conditions (the
caller may try the same call again later and expect it to work) have their own
branch, so a worker or an HTTP layer decides with one ``isinstance``::

    HmemError
    ├── ConfigError                  settings that cannot work (bad URI, missing key)
    │   └── ModelNotConfiguredError  no model for this capability (names what to set)
    ├── ValidationError              the caller's input is wrong; nothing was written
    │   ├── NaiveDatetimeError       a datetime without a timezone
    │   ├── DateRangeError           a datetime that cannot be expressed in UTC (year 1..9999)
    │   ├── TemporalOrderError       a window that would end before it starts
    │   ├── TextTooLongError         a fact or message over the configured limit
    │   ├── DimensionMismatchError   a vector whose size is not the index's size
    │   └── InvalidVectorError       a vector with NaN/Infinity, or no direction (all zeros)
    ├── NotFoundError                no such fact/entity/job *for this user*
    ├── ConflictError                the operation contradicts the stored state
    │   │                            (closing a closed fact, restoring an open one)
    │   └── UserErasedError          the user was erased after the write was accepted
    ├── SchemaError                  the database schema disagrees with the config
    │   └── EmbeddingModelMismatchError  the store's vectors come from another model
    ├── PolicyRefusal                the write policy refused the input (names the kind)
    ├── KeyRevokedError              the key that accepted a queued session was revoked
    ├── ApiError                     the hmem HTTP API answered with an error of no class
    │   │                            here (``status``, ``problem``; ``hmem.Client`` only)
    │   ├── AuthenticationError      401: no key, or a malformed/unknown/revoked one
    │   └── PermissionDeniedError    403: the key may not reach that user
    ├── ModelError                   a model service answered with something unusable
    │   ├── ModelOutputError         malformed or schema-violating JSON after a retry
    │   └── ModelAuthError           401/403 from the model service: fix the key
    └── RetryableError               try again later; nothing was lost
        ├── StoreUnavailableError    Neo4j cannot be reached / transient failure
        ├── ErasureInProgressError   the user is being erased; write again after it
        ├── BookmarkWaitError        the database has not reached a read's bookmark yet
        ├── QueueUnavailableError    the job queue's disk is full, failing or locked
        ├── ApiUnavailableError      the hmem HTTP API cannot be reached (``hmem.Client``)
        └── ModelUnavailableError    timeout, 429 or 5xx from a model service

``ValidationError`` deliberately does not derive from ``ValueError``: raised inside a
pydantic validator it propagates as itself instead of being folded into pydantic's
own error. Another user's fact is reported as ``NotFoundError``: to a caller, a fact of another
tenant does not exist. HTTP status codes are decided only in ``hmem.api``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ApiError",
    "ApiUnavailableError",
    "AuthenticationError",
    "ConfigError",
    "ConflictError",
    "DateRangeError",
    "DimensionMismatchError",
    "EmbeddingModelMismatchError",
    "ErasureInProgressError",
    "HmemError",
    "InvalidVectorError",
    "KeyRevokedError",
    "ModelAuthError",
    "ModelError",
    "ModelNotConfiguredError",
    "ModelOutputError",
    "ModelUnavailableError",
    "NaiveDatetimeError",
    "NotFoundError",
    "PermissionDeniedError",
    "PolicyRefusal",
    "QueueUnavailableError",
    "RetryableError",
    "SchemaError",
    "StoreUnavailableError",
    "TemporalOrderError",
    "TextTooLongError",
    "UserErasedError",
    "ValidationError",
]


class HmemError(Exception):
    """Root of every error hmem raises on purpose."""


class ConfigError(HmemError):
    """The settings cannot work."""


class ModelNotConfiguredError(ConfigError):
    """No model can serve this (none configured, or it cannot be had); the message names
    the variables to set."""


class ValidationError(HmemError):
    """The caller's input is wrong; nothing was written."""


class NaiveDatetimeError(ValidationError):
    """A datetime without a timezone: hmem never guesses the zone."""


class DateRangeError(ValidationError):
    """A datetime that leaves years 1..9999 when converted to UTC
    (``9999-12-31T23:59:59-14:00``): hmem stores every time in UTC."""


class TemporalOrderError(ValidationError):
    """A time window would end before it starts."""


class TextTooLongError(ValidationError):
    """A text is longer than the configured limit."""


class DimensionMismatchError(ValidationError):
    """A vector's size differs from the configured embedding dimension."""


class InvalidVectorError(ValidationError):
    """A vector no similarity can be computed with: NaN, Infinity, or a zero (or overflowing)
    length. Stored, it would make every cosine over its user's facts fail."""


class NotFoundError(HmemError, LookupError):
    """No such object for this user (another user's object is reported the same way)."""


class KeyRevokedError(HmemError):
    """The API key that accepted a session was revoked (or lost its reach to the user)
    before the session was written: nothing of it is written (HTTP 401)."""


class ConflictError(HmemError):
    """The operation does not fit the stored state."""


class UserErasedError(ConflictError):
    """The user was erased after this write (a session, a fact) was accepted: the
    erasure wins, nothing of the write was stored, and it must not be retried."""


class SchemaError(HmemError):
    """The database schema disagrees with the configuration."""


class EmbeddingModelMismatchError(SchemaError):
    """The store's vectors were made by another embedding model (or dimension): mixing
    them would rank garbage. ``hmem reembed`` moves a store to another model."""


class PolicyRefusal(HmemError):
    """The write policy refused the input. ``kind`` names what was refused, never the value."""

    def __init__(self, kind: str, message: str | None = None) -> None:
        self.kind = kind
        super().__init__(message or f"refused by the write policy: {kind}")


class ApiError(HmemError):
    """The hmem API answered with an error that has no class of its own."""

    def __init__(self, message: str, *, status: int = 0, problem: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.problem = problem or {}


class AuthenticationError(ApiError):
    """401: no API key, or a malformed, unknown or revoked one."""


class PermissionDeniedError(ApiError):
    """403: the key's tenant or user list does not include that user."""


class ModelError(HmemError):
    """A model service answered with something unusable."""


class ModelOutputError(ModelError):
    """The model's output was malformed or violated the schema (after one retry).

    ``raw`` keeps the model's last reply so the session can be kept and retried.
    """

    raw: str = ""


class ModelAuthError(ModelError):
    """The model service refused the credentials (401/403)."""


class RetryableError(HmemError):
    """A transient failure: the same call may succeed later; nothing was lost."""


class StoreUnavailableError(RetryableError):
    """Neo4j cannot be reached or reported a transient failure."""


class ErasureInProgressError(RetryableError):
    """The user is being erased right now; a write accepted after the erasure began
    may be sent again once it is finished (it then starts the user afresh)."""


class BookmarkWaitError(RetryableError):
    """A read sent with a bookmark (``Hmem-Bookmark``) waited its bounded time and the
    database it reached does not hold that write yet; the same read may succeed later."""


class QueueUnavailableError(RetryableError):
    """The job queue cannot write (SQLite: disk full, I/O error, or locked too long;
    Redis: unreachable).
    The session was not accepted; everything accepted before is intact."""


class ModelUnavailableError(RetryableError):
    """A model service timed out or answered 429/5xx."""


class ApiUnavailableError(RetryableError):
    """The hmem API could not be reached or timed out; try again later."""
