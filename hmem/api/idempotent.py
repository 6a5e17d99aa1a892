"""Idempotency keys for direct writes (``POST .../facts`` and ``.../facts/batch``).

A client that timed out (or got a 503 ``timeout``) cannot know whether its write landed.
Sent with ``Idempotency-Key``, a direct write's new facts get ids derived from the key
(``HMAC(HMEM_SERVER_SECRET, stored user, key)``, for drafts that name no id of their
own), so a retry with the same key finds the first write's facts instead of writing
them again: it answers with their ids (``Idempotent-Replay: true``). A key sent again
with another text is a 409. Without a key, a direct write is not deduplicated beyond
its text (an open fact with the same normalised text is skipped).

A retry that arrives while the first request with its key is still running in this
process (its client gave up, or it was answered 503 ``timeout`` and its handler goes
on) is answered 503 at once (``WriteInFlight``) instead of running the write a second
time beside it: a client's retries add no work to a server that is already slow.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from fastapi import Request, Response

from hmem._text import fact_hash
from hmem.api.problems import WriteInFlight
from hmem.errors import ConflictError, NotFoundError, ValidationError
from hmem.memory import Memory
from hmem.models import WriteResult
from hmem.secret import keyed_ref

__all__ = ["IDEMPOTENCY_HEADER", "in_flight", "replayed", "write_ids"]

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAY_HEADER = "Idempotent-Replay"
_KEY = re.compile(r"[\x21-\x7e]{1,255}")


def write_ids(request: Request, stored_user: str, given: Sequence[str | None]) -> list[str] | None:
    """The ids of a keyed write's facts (a draft's own id kept), or None without a key."""
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is None:
        return None
    if not _KEY.fullmatch(key):
        raise ValidationError(f"{IDEMPOTENCY_HEADER} must be 1-255 visible ASCII characters")
    memory: Memory = request.app.state.memory
    base = keyed_ref(memory.secret, "direct-write", f"{stored_user}\x00{key}")[:32]
    return [own or f"ik-{base}-{n}" for n, own in enumerate(given)]


_running: set[str] = set()
_running_lock = threading.Lock()


@contextmanager
def in_flight(ids: Sequence[str] | None) -> Iterator[None]:
    """Hold a keyed write's first id while it runs (nothing without a key); a second
    request for the same id meanwhile is a ``WriteInFlight`` (503, retry)."""
    if not ids:
        yield
        return
    mark = ids[0]
    with _running_lock:
        if mark in _running:
            raise WriteInFlight("a request with this Idempotency-Key is still running")
        _running.add(mark)
    try:
        yield
    finally:
        with _running_lock:
            _running.discard(mark)


def replayed(
    memory: Memory,
    stored_user: str,
    ids: Sequence[str],
    texts: Sequence[str],
    response: Response,
    *,
    all_ids: bool = False,
) -> WriteResult | None:
    """The first write's answer when its facts are stored (checked by the first id, or
    by every id with ``all_ids``), else None; 409 when the key wrote another text."""
    found: list[str] = []
    for fact_id, text in zip(ids if all_ids else ids[:1], texts, strict=False):
        try:
            fact = memory.get(fact_id, user_id=stored_user)
        except NotFoundError:
            continue
        if fact.hash != fact_hash(text):
            raise ConflictError(f"this {IDEMPOTENCY_HEADER} was used for another write")
        found.append(fact_id)
    if not found:
        return None
    if not all_ids:
        found = [i for i in ids if _exists(memory, stored_user, i)]
    response.headers[REPLAY_HEADER] = "true"
    return WriteResult(added=found)


def _exists(memory: Memory, stored_user: str, fact_id: str) -> bool:
    try:
        memory.get(fact_id, user_id=stored_user)
    except NotFoundError:
        return False
    return True
