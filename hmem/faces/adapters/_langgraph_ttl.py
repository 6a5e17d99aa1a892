"""The LangGraph store's TTL, a mixin of ``hmem.faces.adapters.langgraph``'s stores:
each item's clock (from its last write, or a read when the ``ttl`` config says
``refresh_on_read``; refreshes are kept in the process, and after a restart a clock
counts from the later of the last write and the store's start, so nothing expires
early), the sweep that closes expired items (a close: restorable, never erased), and
the sweeper: a thread for ``HmemStore``, a task for ``AsyncHmemStore``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from hmem.errors import NotFoundError
from hmem.faces.adapters._core import Port
from hmem.faces.adapters._langgraph_items import _PAGE, T, _Entry, _entry, _run
from hmem.models import Fact

try:
    from langgraph.store.base import TTLConfig
except ImportError as exc:  # the framework is the langgraph extra
    from hmem.faces.adapters._core import missing

    raise missing("langgraph", "langgraph") from exc

__all__ = ["AsyncSweeper", "TTLClocks"]


class TTLClocks:
    """TTL clocks, the sweep and the sweeper thread (the store's slots hold the state)."""

    __slots__ = ()
    _port: Port
    _user_id: str | None
    _users: set[str]
    _refreshed: dict[tuple[str, tuple[str, ...], str], datetime]
    _started: datetime
    _loop: asyncio.AbstractEventLoop | None
    _sweeper: Any
    _sweeper_stop: threading.Event
    ttl_config: TTLConfig | None

    async def _facts(self, user: str, **options: Any) -> list[Fact]:
        """Every fact of the user the options select, page by page."""
        out: list[Fact] = []
        while True:
            page: list[Fact] = await self._port.acall(
                "facts", user_id=user, limit=_PAGE, offset=len(out), **options
            )
            out += page
            if len(page) < _PAGE:
                return out

    def _expired(self, user: str, entry: _Entry, now: datetime) -> bool:
        ttl = entry.meta.ttl
        if ttl is None or entry.fact.known_to is not None:
            return False
        slot = (user, entry.meta.namespace, entry.meta.key)
        since = max(entry.fact.known_from, self._refreshed.get(slot, self._started))
        return now >= since + timedelta(minutes=ttl)

    def _refresh(self, user: str, entries: Iterable[_Entry], wanted: bool) -> None:
        """A read restarts the TTL clocks of what it returns when the op asks (the
        default) and the store's ``ttl`` config says ``refresh_on_read``, as in
        SqliteStore and PostgresStore."""
        if not wanted or not (self.ttl_config or {}).get("refresh_on_read", False):
            return
        now = datetime.now(UTC)
        for entry in entries:
            if entry.meta.ttl is not None:
                self._refreshed[(user, entry.meta.namespace, entry.meta.key)] = now

    async def asweep_ttl(self) -> int:
        """Close the expired items of the users this store served (restorable); how many."""
        users = [self._user_id] if self._user_id is not None else sorted(self._users)
        now = datetime.now(UTC)
        swept = 0
        for user in users:
            for fact in await self._facts(user):
                entry = _entry(fact)
                if entry is not None and self._expired(user, entry, now):
                    with contextlib.suppress(NotFoundError):
                        await self._port.acall("close", fact.id, user_id=user)
                        swept += 1
                    self._refreshed.pop((user, entry.meta.namespace, entry.meta.key), None)
        return swept

    def sweep_ttl(self) -> int:
        """``asweep_ttl`` from sync code (SqliteStore's / PostgresStore's name)."""
        return self._sync(self.asweep_ttl())

    def _sync(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._port.is_async and self._loop is not None and not self._loop.is_closed():
            return asyncio.run_coroutine_threadsafe(coro, self._loop).result()
        return _run(coro)

    def _interval(self, minutes: float | None) -> float:
        minutes = minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5.0
        return float(minutes) * 60

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """A thread that calls ``sweep_ttl`` every interval until ``stop_ttl_sweeper``."""
        seconds = self._interval(sweep_interval_minutes)
        if self._sweeper is not None and not self._sweeper.done():
            return self._sweeper  # type: ignore[no-any-return]
        self._sweeper_stop.clear()
        done: concurrent.futures.Future[None] = concurrent.futures.Future()

        def loop() -> None:
            try:
                while not self._sweeper_stop.wait(seconds):
                    self.sweep_ttl()
            finally:
                done.set_result(None)

        threading.Thread(target=loop, name="hmem-ttl-sweeper", daemon=True).start()
        self._sweeper = done
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; whether it stopped within ``timeout`` seconds."""
        if self._sweeper is None:
            return True
        self._sweeper_stop.set()
        try:
            self._sweeper.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            return False
        self._sweeper = None
        return True


class AsyncSweeper(TTLClocks):
    """The sweep and its task for an async backend (``AsyncHmemStore``)."""

    __slots__ = ()  # the task is kept where the thread's future is (``_sweeper``)

    async def sweep_ttl(self) -> int:  # type: ignore[override]
        return await self.asweep_ttl()

    async def start_ttl_sweeper(  # type: ignore[override]
        self, sweep_interval_minutes: float | None = None
    ) -> asyncio.Task[None]:
        seconds = self._interval(sweep_interval_minutes)
        running = self._sweeper
        if isinstance(running, asyncio.Task) and not running.done():
            return running

        async def loop() -> None:
            while True:
                await asyncio.sleep(seconds)
                await self.asweep_ttl()

        task = asyncio.create_task(loop())
        self._sweeper = task
        return task

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:  # type: ignore[override]
        if self._sweeper is None:
            return True
        self._sweeper.cancel()
        try:
            await asyncio.wait_for(self._sweeper, timeout)
        except asyncio.CancelledError:
            pass
        except TimeoutError:
            return False
        self._sweeper = None
        return True
