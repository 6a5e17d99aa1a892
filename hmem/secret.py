"""The server secret: the key of every keyed hash hmem stores or exports.

Idempotency keys and session ids in the job queue, and user ids in OpenTelemetry spans,
are kept as ``HMAC-SHA256(secret, purpose + value)``, never plain and never as a bare
SHA-256 (a dictionary of likely user ids or session names reverses that in seconds).
The secret is ``HMEM_SERVER_SECRET`` when set (every process of one deployment must
share it: the API, ``hmem worker``, the CLI), else 32 random bytes in a file beside the
queue (``server.secret``, mode 0600), made on first use: processes of one host that
share the queue share the file too.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

__all__ = ["keyed_ref", "load_secret", "secret_file"]

SECRET_FILE = "server.secret"  # noqa: S105  # a file name, not a secret


def secret_file(queue_path: Path | str) -> Path | None:
    """Where the generated secret lives for this queue (None: an in-memory queue)."""
    if str(queue_path) == ":memory:":
        return None
    return Path(queue_path).parent / SECRET_FILE


def load_secret(configured: str | None, queue_path: Path | str) -> bytes:
    """The configured secret, or the one in the file beside the queue (made if missing;
    two processes racing to make it both read the one that won)."""
    if configured:
        return configured.encode()
    path = secret_file(queue_path)
    if path is None:
        return secrets.token_bytes(32)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole under a private name, then linked into place: a process that
        # loses the race reads the winner's, never a half-written file.
        tmp = path.with_name(f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32))
            with contextlib.suppress(FileExistsError):  # another process won
                os.link(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return path.read_text().strip().encode()


def keyed_ref(secret: bytes, purpose: str, value: str) -> str:
    """``HMAC-SHA256(secret, purpose NUL value)`` in hex: the same value for the same
    purpose and secret, and nothing a dictionary attack without the secret can invert."""
    return hmac.new(secret, f"{purpose}\x00{value}".encode(), hashlib.sha256).hexdigest()
