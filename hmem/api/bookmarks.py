"""Read-your-writes across API replicas, with Neo4j's bookmarks (docs/scaling.md).

Every successful authenticated ``/v1`` answer carries ``Hmem-Bookmark``: the bookmarks of
the newest commits this replica has seen (they cover the request's own write), sealed
with the server secret and bound to the caller's tenant. The seal is AES-GCM: no caller
reads Neo4j's transaction counter in it (no view of other tenants' write activity), none
forges one, and another tenant's token is refused. ``/healthz``, ``/readyz`` and every
refused request carry none.

A read sent with that header, to any replica, is authenticated first (no key: 401 before
any wait), then its token is opened (not one of ours, or another tenant's: 422 at once).
If this replica has seen those commits already, nothing waits. Otherwise the read waits,
through a small async Neo4j driver of its own, until the database holds them, for
``bookmark_wait_s`` at most (itself capped below Neo4j's own 30 s
``bookmark_ready_timeout``); past it the wait is cancelled, which closes its connection
(no thread or transaction outlives the request), and the answer is a 503 problem
(``bookmark-wait``). The caller's bookmark serves that request only: it never enters the
driver-wide bookmark manager every other request's reads use. ``Client`` and
``AsyncClient`` send back the last header of their own writes.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import os
import re
from collections.abc import Sequence
from typing import Annotated, Any

import neo4j
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials
from neo4j import AsyncDriver, Bookmarks, Driver
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hmem.api.auth import _bearer, _caller, _header
from hmem.config import Config
from hmem.errors import BookmarkWaitError, StoreUnavailableError, ValidationError
from hmem.memory import resolve_password

__all__ = ["BOOKMARK_HEADER", "BookmarkHeaders", "BookmarkSeal", "read_after_bookmark"]

BOOKMARK_HEADER = "Hmem-Bookmark"
_PREFIX = "hb1."
_TOKEN = re.compile(r"hb1\.[A-Za-z0-9_-]{20,2048}")
_MAX_BOOKMARKS = 16
_NONCE = 12


class BookmarkSeal:
    """Seals Neo4j bookmarks into one opaque token for a tenant, and opens it again.

    AES-256-GCM under a key derived from the server secret; the tenant is the associated
    data, so a token opens only for the tenant it was made for."""

    def __init__(self, secret: bytes) -> None:
        key = hmac.new(secret, b"hmem-bookmark-seal-v1", hashlib.sha256).digest()
        self._aead = AESGCM(key)

    def seal(self, tenant: str, marks: Sequence[str]) -> str:
        nonce = os.urandom(_NONCE)
        body = json.dumps(sorted(marks), separators=(",", ":")).encode()
        sealed = self._aead.encrypt(nonce, body, tenant.encode())
        return _PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")

    def open(self, tenant: str, token: str) -> list[str]:
        """The bookmarks in ``token``, or ``ValidationError`` (malformed, not made by this
        deployment, or made for another tenant: one message for all three)."""
        refused = ValidationError(
            f"{BOOKMARK_HEADER} must be a bookmark this API gave your key's tenant"
        )
        token = token.strip()
        if not _TOKEN.fullmatch(token):
            raise refused
        try:
            raw = base64.urlsafe_b64decode(token[len(_PREFIX) :] + "=" * (-len(token) % 4))
            body = self._aead.decrypt(raw[:_NONCE], raw[_NONCE:], tenant.encode())
            marks: Any = json.loads(body)
        except (binascii.Error, ValueError, InvalidTag):
            raise refused from None
        if (
            not isinstance(marks, list)
            or len(marks) > _MAX_BOOKMARKS
            or not all(isinstance(m, str) for m in marks)
        ):
            raise refused
        return marks


def _is_read(request: Request) -> bool:
    # Accepting a session must work while Neo4j restarts: only reads wait.
    return request.method == "GET" or request.url.path.endswith("/search")


def seal_for(request: Request, tenant: str, marks: Sequence[str]) -> str:
    """``marks`` sealed for ``tenant`` with this app's seal."""
    seal: BookmarkSeal = request.app.state.bookmark_seal
    return seal.seal(tenant, marks)


def _async_driver(request: Request) -> AsyncDriver:
    """The app's driver for bookmark waits, opened on the first wait that needs one."""
    state = request.app.state
    found: AsyncDriver | None = getattr(state, "bookmark_driver", None)
    if found is None:
        config: Config = state.config
        found = neo4j.AsyncGraphDatabase.driver(
            config.neo4j_uri,
            auth=(config.neo4j_user, resolve_password(config)),
            connection_timeout=config.neo4j_connect_timeout_s,
            max_connection_pool_size=8,
            notifications_min_severity="OFF",
        )
        state.bookmark_driver = found
    return found


async def _wait(driver: AsyncDriver, database: str, marks: list[str]) -> None:
    """Open (and commit) an empty read transaction after ``marks``: Neo4j begins it once
    it holds them. Cancelling this (the bound) closes the connection."""
    async with driver.session(
        database=database,
        bookmarks=Bookmarks.from_raw_values(marks),
        default_access_mode=neo4j.READ_ACCESS,
    ) as session:
        try:
            tx = await session.begin_transaction()
            await tx.commit()
        except neo4j.exceptions.ClientError as exc:
            code = exc.code or ""
            if "TimedOut" in code or "Timeout" in code:
                raise BookmarkWaitError("the database did not reach the bookmark") from None
            raise ValidationError(f"not a bookmark of this database ({code})") from None
        except neo4j.exceptions.TransientError as exc:
            raise BookmarkWaitError(f"the bookmark was not reached ({exc.code})") from None
        except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired):
            raise StoreUnavailableError("Neo4j is unavailable") from None
        except neo4j.exceptions.DatabaseError:
            raise ValidationError("not a bookmark of this database") from None


async def read_after_bookmark(
    request: Request,
    hmem_bookmark: Annotated[
        str | None,
        Header(
            alias=BOOKMARK_HEADER,
            description="The Hmem-Bookmark of an earlier answer of your tenant: this read "
            "waits until the database holds that write (read-your-writes across replicas)",
        ),
    ] = None,
    bearer: HTTPAuthorizationCredentials | None = Depends(_bearer),  # noqa: B008
    header: str | None = Depends(_header),
) -> None:
    """The route dependency: a read sent with a bookmark is authenticated, then waits for
    it (bounded, this request only)."""
    if not hmem_bookmark or not _is_read(request):
        return
    # the key first: no wait, and no word about the token, for a caller we do not know
    who = await _caller(
        request, bearer.credentials if bearer is not None else header, queueing=False
    )
    seal: BookmarkSeal = request.app.state.bookmark_seal
    marks = seal.open(who.tenant, hmem_bookmark)
    if not marks:
        return
    driver: Driver = request.app.state.driver
    seen = set(driver.execute_query_bookmark_manager.get_bookmarks())
    if set(marks) <= seen:
        return  # this replica made or saw those commits: its reads already follow them
    config: Config = request.app.state.config
    timeout = config.bookmark_wait_s
    try:
        await asyncio.wait_for(
            _wait(_async_driver(request), config.neo4j_database, marks), timeout=timeout
        )
    except TimeoutError:
        raise BookmarkWaitError(
            f"the database did not hold the sent bookmark within {timeout:g} s"
        ) from None


class BookmarkHeaders:
    """Adds ``Hmem-Bookmark`` to every successful authenticated ``/v1`` answer (pure
    ASGI: it sees the status before the body), sealed for the caller's tenant."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith("/v1/"):
            await self.app(scope, receive, send)
            return

        async def send_wrapped(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                state = scope["app"].state
                tenant = scope.get("state", {}).get("tenant")
                driver: Driver | None = getattr(state, "driver", None)
                seal: BookmarkSeal | None = getattr(state, "bookmark_seal", None)
                if tenant and driver is not None and seal is not None:
                    marks = sorted(driver.execute_query_bookmark_manager.get_bookmarks())
                    if marks:
                        headers = list(message.get("headers", []))
                        headers.append((b"hmem-bookmark", seal.seal(tenant, marks).encode()))
                        message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_wrapped)
