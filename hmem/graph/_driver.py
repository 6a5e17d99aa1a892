"""Driver plumbing: the breaker that fails fast while Neo4j is down, driver errors
translated into hmem's, the fulltext index's lag, and running one catalog statement."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from neo4j import READ_ACCESS, Driver, Query, Session
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
    driver's connection and retry timeouts (and holding a server thread meanwhile). One
    failure is not enough: on a loaded machine a single slow connection to a live server
    must not fail everyone's requests.

    Once open, with a ``probe``, the breaker stays open until the probe reaches Neo4j:
    after each cooldown one probe runs in a thread of its own while every call still
    fails at once. A restarting server takes connections long before it answers (its
    Bolt port opens, then its databases recover: 45 s measured on a loaded machine), and
    a request sent into that window waits out the pool's acquisition timeout, once per
    retry (issue 45's N9: 12-50 s). Without a probe, the first call after the cooldown
    tries Neo4j again: a failure reopens the breaker at once, a call that reaches Neo4j
    closes it."""

    def __init__(
        self,
        threshold: int = 3,
        cooldown_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        probe: Callable[[], None] | None = None,
    ) -> None:
        self.threshold, self.cooldown_s, self._clock = threshold, cooldown_s, clock
        self._probe = probe
        self._failures = 0
        self._open_until = 0.0
        self._down = False  # opened, and no probe or call reached Neo4j since
        self._probing = False
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._clock() < self._open_until or (self._down and self._probe is not None)

    def check(self) -> None:
        if self._clock() < self._open_until:
            raise StoreUnavailableError("Neo4j is unavailable (it failed moments ago)")
        if self._down and self._probe is not None:
            self._start_probe()
            raise StoreUnavailableError("Neo4j is unavailable (it is being tried again)")

    def failure(self) -> None:
        """A call found Neo4j unreachable."""
        with self._lock:
            self._failures += 1
            if self._failures >= self.threshold:
                self._open_until = self._clock() + self.cooldown_s
                self._down = True

    def success(self) -> None:
        """A call reached Neo4j."""
        with self._lock:
            self._failures, self._open_until, self._down = 0, 0.0, False

    def _start_probe(self) -> None:
        with self._lock:
            if self._probing or self._clock() < self._open_until:
                return
            self._probing = True
        threading.Thread(target=self._run_probe, name="hmem-neo4j-probe", daemon=True).start()

    def _run_probe(self) -> None:
        assert self._probe is not None
        try:
            self._probe()
        except Exception:  # still down (or not answering yet): try again after a cooldown
            with self._lock:
                self._open_until = self._clock() + self.cooldown_s
        else:
            self.success()
        finally:
            with self._lock:
                self._probing = False


_PROBE_TIMEOUT_S = 2.0


def _prober(driver: Driver) -> Callable[[], None]:
    """A probe of ``driver``'s server: a query on its home database that must answer
    within ``_PROBE_TIMEOUT_S`` (the database must serve queries, not only take
    connections: a starting server may name its database unknown or unavailable for a
    while); a refusal of the credentials is an answer too. Holds the driver weakly (the
    breakers' map is keyed by it)."""
    ref = weakref.ref(driver)

    def probe() -> None:
        found = ref()
        if found is None:
            return
        try:
            with found.session(default_access_mode=READ_ACCESS) as session:
                session.run(Query("RETURN 1", timeout=_PROBE_TIMEOUT_S)).consume()
        except (neo.AuthError, neo.Forbidden):
            return  # the server answered (a refusal of the credentials is not an outage)

    return probe


_breakers: weakref.WeakKeyDictionary[Driver, Breaker] = weakref.WeakKeyDictionary()
_breakers_lock = threading.Lock()


def breaker(driver: Driver) -> Breaker:
    """The one breaker of a driver (every part of the store that shares it, shares it)."""
    with _breakers_lock:
        found = _breakers.get(driver)
        if found is None:
            found = _breakers[driver] = Breaker(probe=_prober(driver))
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
        if "DatabaseUnavailable" in (exc.code or ""):  # a server still starting
            guard.failure()
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
