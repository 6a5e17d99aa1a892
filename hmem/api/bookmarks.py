"""Read-your-writes across API replicas, with Neo4j's bookmarks (docs/scaling.md).

Every successful answer carries ``Hmem-Bookmark``: the bookmarks of the newest commits
this replica has seen, which cover the request's own write (the driver's bookmark
manager keeps the latest of each session; a later commit's bookmark covers the earlier
ones). A read sent with that header, to any replica, first waits until the database
it reads holds those commits, for ``bookmark_wait_s`` at most: past it, a 503
problem (``bookmark-wait``). ``Client`` and ``AsyncClient`` send back the last header
they were given, so a caller behind a load balancer reads its own writes.
"""

from __future__ import annotations

import asyncio
import re
from typing import Annotated

from fastapi import Header, Request
from neo4j import Driver
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hmem.errors import BookmarkWaitError, ValidationError

__all__ = ["BOOKMARK_HEADER", "BookmarkHeaders", "read_after_bookmark"]

BOOKMARK_HEADER = "Hmem-Bookmark"
# Neo4j's bookmarks are short base64-like tokens ("FB:kcwQ…", 30 characters on 5.26);
# anything else is refused before it reaches the server (5.26 answers a 2-character
# one such as "U:" with an internal error, not InvalidBookmark).
_BOOKMARK = re.compile(r"[A-Za-z0-9:+/=_.-]{8,512}")
_MAX_BOOKMARKS = 16


def _parse(value: str) -> list[str]:
    marks = [part.strip() for part in value.split(",") if part.strip()]
    if len(marks) > _MAX_BOOKMARKS or not all(_BOOKMARK.fullmatch(m) for m in marks):
        raise ValidationError(f"{BOOKMARK_HEADER} must be up to 16 comma-separated bookmarks")
    return marks


def _is_read(request: Request) -> bool:
    # Accepting a session must work while Neo4j restarts: only reads wait.
    return request.method == "GET" or request.url.path.endswith("/search")


async def read_after_bookmark(
    request: Request,
    hmem_bookmark: Annotated[
        str | None,
        Header(
            alias=BOOKMARK_HEADER,
            description="The Hmem-Bookmark of an earlier answer: this read waits until "
            "the database holds that write (read-your-writes across replicas)",
        ),
    ] = None,
) -> None:
    """The route dependency: a read sent with a bookmark waits for it (bounded)."""
    if not hmem_bookmark or not _is_read(request):
        return
    marks = _parse(hmem_bookmark)
    if not marks:
        return
    memory = request.app.state.memory
    timeout = memory.config.bookmark_wait_s
    try:
        await asyncio.wait_for(
            asyncio.to_thread(memory.store.wait_for_bookmarks, marks), timeout=timeout
        )
    except TimeoutError:
        raise BookmarkWaitError(
            f"the database did not hold the sent bookmark within {timeout:g} s"
        ) from None


class BookmarkHeaders:
    """Adds ``Hmem-Bookmark`` to every successful answer (pure ASGI: it sees the
    status before the body)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_wrapped(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                driver: Driver | None = getattr(scope["app"].state, "driver", None)
                if driver is not None:
                    marks = sorted(driver.execute_query_bookmark_manager.get_bookmarks())
                    if marks:
                        headers = list(message.get("headers", []))
                        headers.append((b"hmem-bookmark", ",".join(marks).encode()))
                        message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_wrapped)
