"""Who is calling, and which users they may reach.

A request carries an API key (``Authorization: Bearer hmem_...`` or ``X-API-Key``). The
key names a tenant and, optionally, the only user ids it may reach. The tenant boundary
is structural, not a filter: the API's user ``bob`` of tenant ``acme`` is stored as the
user ``acme:bob``, and a caller can only ever name the part after the colon. No request
can spell another tenant's stored id, and a fact id of another tenant's user is simply
not found under the caller's user (fact ids are unique per stored user id).
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from hmem.api.problems import Forbidden, Unauthenticated
from hmem.errors import StoreUnavailableError
from hmem.graph.apikeys import USER_ID_PATTERN, ApiKey, KeyStore

__all__ = [
    "USER_ID_PATTERN",
    "Authenticator",
    "Principal",
    "external_user_id",
    "principal",
    "queueing_principal",
    "stored_user_id",
]


_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer hmem_<id>_<secret>")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="the same key")


def stored_user_id(tenant: str, user_id: str) -> str:
    return f"{tenant}:{user_id}"


def external_user_id(stored: str) -> str:
    return stored.split(":", 1)[1] if ":" in stored else stored


@dataclass(frozen=True)
class Principal:
    """A verified key: the tenant it acts for and the users it may reach."""

    key: ApiKey

    @property
    def tenant(self) -> str:
        return self.key.tenant

    def scope(self, user_id: str) -> str:
        """The stored user id for an API user id, or ``Forbidden``."""
        if self.key.user_ids is not None and user_id not in self.key.user_ids:
            raise Forbidden(f"key {self.key.key_id} may not reach user {user_id!r}")
        return stored_user_id(self.key.tenant, user_id)


class Authenticator:
    """Verifies keys against the store, trusting a verified key for ``ttl_s`` seconds
    (a revoked key stops working within that time). The cache is keyed by a hash of the
    presented key, never the key itself. While the store is unreachable, a key verified
    less than ``outage_s`` ago is still trusted, but only by the queueing route
    (``queueing=True``): background sessions keep being accepted into the durable queue,
    and each job checks its key again before it writes (a key revoked before the outage
    writes nothing). Every other route answers 503 (even ``/v1/me``, which needs no
    other data: the cache cannot say whether a key was revoked meanwhile)."""

    def __init__(
        self,
        keys: KeyStore,
        *,
        ttl_s: float = 30.0,
        outage_s: float = 3600.0,
        max_entries: int = 10_000,
    ) -> None:
        self._keys = keys
        self._ttl = ttl_s
        self._outage = outage_s
        self._max = max_entries
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, ApiKey]] = {}

    def cached(self, key: str | None) -> Principal | None:
        """The caller of a key verified less than ``ttl_s`` ago, else None (``verify``
        asks the store): no I/O, so the event loop may ask it."""
        if not key:
            return None
        ref = hashlib.sha256(key.encode()).hexdigest()
        with self._lock:
            hit = self._cache.get(ref)
        if hit is not None and time.monotonic() - hit[0] <= self._ttl:
            return Principal(hit[1])
        return None

    def verify(self, key: str | None, *, queueing: bool = False) -> Principal:
        if not key:
            raise Unauthenticated("send an API key: Authorization: Bearer <key> or X-API-Key")
        ref = hashlib.sha256(key.encode()).hexdigest()
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(ref)
        if hit is not None and now - hit[0] <= self._ttl:
            return Principal(hit[1])
        try:
            found = self._keys.verify(key)
        except StoreUnavailableError:
            if queueing and hit is not None and now - hit[0] <= self._outage:
                return Principal(hit[1])
            raise
        if found is None:
            raise Unauthenticated("the API key is malformed, unknown or revoked")
        with self._lock:
            if len(self._cache) >= self._max:
                self._cache.clear()
            self._cache[ref] = (now, found)
        return Principal(found)

    def forget(self) -> None:
        with self._lock:
            self._cache.clear()


async def _caller(request: Request, key: str | None, *, queueing: bool) -> Principal:
    # async: a key verified lately is answered on the event loop; a sync dependency
    # would take a thread-pool hop of its own before the handler's (measured with
    # `hmem bench http`). Only a key to look up goes to a thread (Neo4j).
    auth: Authenticator = request.app.state.auth
    who = auth.cached(key)
    if who is None:
        who = await run_in_threadpool(auth.verify, key, queueing=queueing)
    request.state.tenant = who.tenant
    request.state.key_id = who.key.key_id
    return who


async def principal(
    request: Request,
    bearer: HTTPAuthorizationCredentials | None = Depends(_bearer),  # noqa: B008
    header: str | None = Depends(_header),
) -> Principal:
    """FastAPI dependency: the verified caller, or 401."""
    key = bearer.credentials if bearer is not None else header
    return await _caller(request, key, queueing=False)


async def queueing_principal(
    request: Request,
    bearer: HTTPAuthorizationCredentials | None = Depends(_bearer),  # noqa: B008
    header: str | None = Depends(_header),
) -> Principal:
    """FastAPI dependency of the route that only queues (``POST .../messages``): during
    a Neo4j outage, a key verified less than ``api_key_outage_s`` ago still passes."""
    key = bearer.credentials if bearer is not None else header
    return await _caller(request, key, queueing=True)
