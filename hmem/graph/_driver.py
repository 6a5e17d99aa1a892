"""Driver plumbing: the breaker that fails fast while Neo4j is down, driver errors
translated into hmem's, the fulltext index's lag, and running one catalog statement."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from neo4j import READ_ACCESS, Driver, Session
from neo4j import exceptions as neo

from hmem.errors import ConflictError, StoreUnavailableError
from hmem.graph import catalog

__all__ = [
    "FULLTEXT_LAG",
    "Breaker",
    "FulltextLag",
    "breaker",
    "read_autocommit",
    "run_statement",
    "translate_errors",
]


class Breaker:
    """Fail fast while Neo4j is down: after ``threshold`` calls in a row found it
    unreachable, calls fail at once for ``cooldown_s`` instead of each waiting out the
    driver's connection and retry timeouts (and holding a server thread meanwhile). A
    call after the cooldown tries Neo4j again: a failure reopens the breaker at once, a
    call that reaches Neo4j closes it. One failure is not enough: on a loaded machine a
    single slow connection to a live server must not fail everyone's requests."""

    def __init__(
        self,
        threshold: int = 3,
        cooldown_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold, self.cooldown_s, self._clock = threshold, cooldown_s, clock
        self._failures = 0
        self._open_until = 0.0
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._clock() < self._open_until

    def check(self) -> None:
        if self.is_open:
            raise StoreUnavailableError("Neo4j is unavailable (it failed moments ago)")

    def failure(self) -> None:
        """A call found Neo4j unreachable."""
        with self._lock:
            self._failures += 1
            if self._failures >= self.threshold:
                self._open_until = self._clock() + self.cooldown_s

    def success(self) -> None:
        """A call reached Neo4j."""
        with self._lock:
            self._failures, self._open_until = 0, 0.0


_breakers: weakref.WeakKeyDictionary[Driver, Breaker] = weakref.WeakKeyDictionary()
_breakers_lock = threading.Lock()


def breaker(driver: Driver) -> Breaker:
    """The one breaker of a driver (every part of the store that shares it, shares it)."""
    with _breakers_lock:
        found = _breakers.get(driver)
        if found is None:
            found = _breakers[driver] = Breaker()
        return found


@contextmanager
def translate_errors(driver: Driver) -> Iterator[None]:
    """Driver errors into hmem's tree: transient ones (and a pool with no connection free
    in time) are retryable. Unreachable Neo4j counts towards ``driver``'s breaker.
    Messages name the failure's kind only (the driver's text names the server's
    address)."""
    guard = breaker(driver)
    guard.check()
    try:
        yield
    except neo.ConstraintError as exc:
        raise ConflictError(f"the write conflicts with stored data: {exc.message}") from exc
    except (neo.ServiceUnavailable, neo.SessionExpired) as exc:
        guard.failure()
        raise StoreUnavailableError(f"Neo4j is unavailable ({type(exc).__name__})") from exc
    except neo.ConnectionPoolError as exc:  # every connection busy (a slow server, not a lost one)
        raise StoreUnavailableError(f"Neo4j is busy ({type(exc).__name__})") from exc
    except neo.TransientError as exc:
        raise StoreUnavailableError(f"Neo4j reported a transient failure ({exc.code})") from exc
    guard.success()


class FulltextLag:
    """Read-your-writes over the eventually consistent fulltext index.

    Lucene takes a commit's text in the background (schema_fact_fulltext.cypher), so a
    commit no longer waits for it: ~10 ms later the text is searchable. A search in a
    process that wrote since the last wait first waits for the index to hold those
    writes (one ``awaitEventuallyConsistentIndexRefresh`` call, ~1-15 ms); a search with
    no write before it costs nothing. Writes count themselves after their commit
    (``wrote``), so a wait that starts later covers them. Another process's writes are
    visible ~10 ms after their commit, or at once after ``Memory.catch_up``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting = threading.Lock()  # one wait at a time; the others share it
        self._written = 0  # commits counted so far
        self._settled = 0  # commits a finished wait covers

    def wrote(self) -> None:
        """A transaction that may change indexed text (a fact created or erased) committed."""
        with self._lock:
            self._written += 1

    def settle(self, driver: Driver, database: str) -> None:
        """Before a search: wait until the index holds every write counted so far."""
        with self._lock:
            target = self._written
            if self._settled >= target:
                return
        with self._waiting:
            with self._lock:
                if self._settled >= target:
                    return  # another thread's wait covered it
                covers = self._written
            stmt = catalog.statement("schema_fulltext_refresh")
            with translate_errors(driver):
                read_autocommit(driver, database, lambda session: session.run(stmt.text).consume())
            with self._lock:
                self._settled = max(self._settled, covers)


# The process's one: every store and search shares it, whatever its driver, so a write
# through one driver is waited for by a search through another.
FULLTEXT_LAG = FulltextLag()


T = TypeVar("T")


def read_autocommit(driver: Driver, database: str, run: Callable[[Session], T]) -> T:
    """``run(session)`` in a read session, for auto-commit queries: RUN and PULL in one
    network round trip, where ``execute_query``'s managed transaction adds BEGIN and
    COMMIT (a second round trip, ~4 ms measured on a loaded machine). Transient failures
    are retried twice, as the managed path would. The session is chained to
    ``execute_query``'s bookmark manager, like the store's writes: on a cluster a read
    routed to a follower waits for this process's acknowledged writes; on one server
    it costs nothing. Errors are the driver's (wrap the call in ``translate_errors``)."""
    attempt = 0
    while True:
        try:
            with driver.session(
                database=database,
                default_access_mode=READ_ACCESS,
                bookmark_manager=driver.execute_query_bookmark_manager,
            ) as session:
                return run(session)
        except (neo.ServiceUnavailable, neo.SessionExpired, neo.TransientError):
            attempt += 1
            if attempt > 2:
                raise
            time.sleep(0.05 * attempt)


def run_statement(
    driver: Driver, database: str, name: str, /, *, native: bool = False, **params: Any
) -> list[dict[str, Any]]:
    """One catalog statement in a transaction of its own (``execute_query``: sent to the
    leader, retried on transient errors), errors translated; its rows as dicts.
    ``native``: the statement's ``//native`` text (hmem's plugin)."""
    stmt = catalog.statement(name)
    with translate_errors(driver):
        records, _, _ = driver.execute_query(
            stmt.text_for(native=native, cypher25=False), stmt.bind(params), database_=database
        )
    return [r.data() for r in records]
