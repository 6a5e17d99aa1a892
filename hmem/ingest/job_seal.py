"""A shared-queue job's seal and signature (``hmem/ingest/queue_redis.py``).

What a reader of the queue's server (or its files) sees of a job: its user id, status,
times and counts. Its text, session id, extraction and raw model output are sealed
(AES-GCM under a key derived from ``HMEM_SERVER_SECRET``, bound to the job id and the
field), and every job is signed with that secret over its identity and sealed text. The
worker refuses a job whose signature does not hold (pushed by someone without the
secret, or altered) and an API user's job (``tenant:user``) without its API key id.
A finished job's result (the ids a synchronous ``add`` and ``GET /v1/jobs/{id}``
answer) is signed too, apart from the job (the erasure of a fact rewrites it); one that
does not hold reads as a failed job, never as another write's ids.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

__all__ = ["REFUSED_KEYLESS", "REFUSED_RESULT", "REFUSED_UNSIGNED", "SEALED", "TEXT", "JobSeal"]

# A job's text, dropped when it is done and on erasure.
TEXT = ("source_text", "episode_text", "extraction", "raw_output")
# Sealed at rest (what a session said, what the model read and answered, its session id)
SEALED = (*TEXT, "session_id")
# What a job's signature covers: who it writes for, with which key, and what it says
_SIGNED = (
    "id",
    "user_id",
    "key_id",
    "idempotency_key",
    "observed_at",
    "score",
    "refused",
    "ignored",
    "created_at",
    "session_ref",
    "source_text",
    "episode_text",
    "session_id",
)
_NONCE = 12
REFUSED_UNSIGNED = "RefusedJob: not signed with this deployment's HMEM_SERVER_SECRET"
REFUSED_RESULT = "RefusedJob: its result is not signed with this deployment's HMEM_SERVER_SECRET"
REFUSED_KEYLESS = "RefusedJob: a job for an API user must carry the API key that accepted it"


class JobSeal:
    """Seals a job's fields and signs the job, with keys derived from the secret."""

    def __init__(self, secret: bytes) -> None:
        self._sign_key = hmac.new(secret, b"hmem-queue-sign-v1", hashlib.sha256).digest()
        self._aead = AESGCM(hmac.new(secret, b"hmem-queue-seal-v1", hashlib.sha256).digest())

    def seal(self, job_id: str, field: str, value: str) -> str:
        if not value:
            return ""
        nonce = os.urandom(_NONCE)
        sealed = self._aead.encrypt(nonce, value.encode(), f"{job_id}\x00{field}".encode())
        return "s1:" + base64.b64encode(nonce + sealed).decode()

    def open(self, job_id: str, field: str, value: str) -> str:
        """A sealed field's text; "" when it is empty or does not open (altered)."""
        if not value.startswith("s1:"):
            return ""
        try:
            raw = base64.b64decode(value[3:], validate=True)
            return self._aead.decrypt(
                raw[:_NONCE], raw[_NONCE:], f"{job_id}\x00{field}".encode()
            ).decode()
        except (binascii.Error, ValueError, InvalidTag):
            return ""

    def signature(self, row: dict[str, Any]) -> str:
        signed = json.dumps([str(row.get(name, "")) for name in _SIGNED])
        return hmac.new(self._sign_key, signed.encode(), hashlib.sha256).hexdigest()

    def result_signature(self, job_id: str, result: str) -> str:
        """The signature of a finished job's result (its JSON text), bound to the job."""
        signed = json.dumps(["result", job_id, result])
        return hmac.new(self._sign_key, signed.encode(), hashlib.sha256).hexdigest()

    def result_holds(self, row: dict[str, str]) -> bool:
        """Whether a row's result (if any) was signed with this secret for this job."""
        if not row.get("result"):
            return True
        expected = self.result_signature(row.get("id", ""), row["result"])
        return hmac.compare_digest(row.get("result_sig", ""), expected)

    def refusal(self, row: dict[str, str]) -> str | None:
        """Why the worker must not run this job, or None."""
        if not hmac.compare_digest(row.get("sig", ""), self.signature(row)):
            return REFUSED_UNSIGNED
        if ":" in row.get("user_id", "") and not row.get("key_id"):
            return REFUSED_KEYLESS
        return None
