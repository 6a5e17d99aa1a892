"""How a read statement runs on this server: with hmem's exact-scan procedure or plain
Cypher (asked once), in Cypher 25 when the vector index filters by user (asked again
at most once a minute while not), as one auto-commit query or through the driver's
``execute_query``. ``hmem.graph.search`` decides what to read; this module only runs it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from neo4j import Driver, Session
from neo4j import exceptions as neo

from hmem.graph import catalog
from hmem.graph._driver import read_autocommit, translate_errors
from hmem.graph.search_rows import server_ms

__all__ = ["TOPK_PROCEDURE", "ReadRunner"]

# hmem's optional Neo4j procedure for the exact scan (built by hmem.localdb.plugin).
TOPK_PROCEDURE = "hmem.vector.topk"
_FILTERED_RECHECK_S = 60.0


class ReadRunner:
    """Runs the catalog's read statements over one database of ``driver``."""

    def __init__(
        self,
        driver: Driver,
        database: str,
        *,
        native_topk: bool | None = None,
        filtered_search: bool | None = None,
    ) -> None:
        self._driver = driver
        self._database = database
        self._lock = threading.Lock()
        self._native = native_topk
        self._filtered = filtered_search
        self._filtered_asked = 0.0

    @property
    def native_topk(self) -> bool:
        """Whether exact scans call ``hmem.vector.topk`` (asked of the server once)."""
        if self._native is None:
            try:
                rows, _ = self.query("schema_procedure_exists", procedure=TOPK_PROCEDURE)
                present = bool(rows[0]["present"])
            except neo.ClientError:
                present = False  # e.g. a user who may not list procedures
            with self._lock:
                self._native = present
        return bool(self._native)

    @property
    def filtered_search(self) -> bool:
        """Whether the vector index filters by user inside a search (Neo4j 2026.02+ with
        ``user_id`` as a filter property of an ONLINE ``fact_embedding``). Once true it
        stays true; while false it is asked again at most once a minute (the index may
        be populating, or be one made by 5.26 before an upgrade: drop it to rebuild)."""
        if self._filtered is not None:
            return self._filtered
        now = time.monotonic()
        if self._filtered_asked and now - self._filtered_asked < _FILTERED_RECHECK_S:
            return False
        rows, _ = self.query("schema_vector_filtered", index="fact_embedding")
        found = bool(rows) and bool(rows[0]["filtered"])
        with self._lock:
            if found:
                self._filtered = True
            self._filtered_asked = now
        return found

    def run(self, stmt: catalog.Statement, run: Callable[[str], Any]) -> Any:
        """``run(text)`` with the statement's native text when the procedure is in use
        (if the server no longer has it, restarted without the plugin, plain again), and
        its Cypher 25 text when the server filters inside the vector index."""
        c25 = stmt.cypher25 is not None and self.filtered_search
        if stmt.native is None or not self.native_topk:
            return run(stmt.text_for(native=False, cypher25=c25))
        try:
            return run(stmt.text_for(native=True, cypher25=c25))
        except neo.ClientError as exc:
            if exc.code != "Neo.ClientError.Procedure.ProcedureNotFound":
                raise
            with self._lock:
                self._native = False
            return run(stmt.text_for(native=False, cypher25=c25))

    def read_autocommit(self, name: str, **params: Any) -> tuple[list[Any], float]:
        """A read as one auto-commit query (``read_autocommit``: one round trip)."""
        stmt = catalog.statement(name)
        bound = stmt.bind(params)

        def in_session(session: Session) -> tuple[list[dict[str, Any]], Any]:
            def run(text: str) -> tuple[list[dict[str, Any]], Any]:
                result = session.run(text, bound)
                # Plain maps and lists only: Record.data()'s recursive transform (for
                # nodes and paths) is skipped.
                records = [dict(zip(r.keys(), r, strict=True)) for r in result]
                return records, result.consume()

            return self.run(stmt, run)  # type: ignore[no-any-return]

        with translate_errors(self._driver):
            records, summary = read_autocommit(self._driver, self._database, in_session)
        return records, server_ms(summary)

    def query(
        self, name: str, routing: Literal["r", "w"] = "r", **params: Any
    ) -> tuple[list[Any], float]:
        stmt = catalog.statement(name)
        bound = stmt.bind(params)
        with translate_errors(self._driver):
            records, summary, _ = self.run(
                stmt,
                lambda text: self._driver.execute_query(
                    text, bound, database_=self._database, routing_=routing
                ),
            )
        return [r.data() for r in records], server_ms(summary)
