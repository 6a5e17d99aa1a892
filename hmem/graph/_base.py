"""The plumbing every part of the store shares: the driver, the catalog runner, the
clock, transactions and the audit trail."""

from __future__ import annotations

import json
import logging
import secrets
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from neo4j import Driver, ManagedTransaction, Record, Session
from neo4j import exceptions as neo

from hmem.errors import (
    ErasureInProgressError,
    HmemError,
    NotFoundError,
    UserErasedError,
)
from hmem.graph import catalog
from hmem.graph._driver import FULLTEXT_LAG, read_autocommit, run_statement, translate_errors
from hmem.graph._records import native, to_fact, unpacked
from hmem.graph.schema import apply_schema
from hmem.models import Fact, require_aware
from hmem.secret import keyed_ref

__all__ = ["ERASED_REF", "VECTOR_SET_PROCEDURE", "StoreBase", "fact_ref", "new_id", "user_ref"]

# hmem's plugin (hmem.localdb.plugin) stores a vector sent as float32 bytes; without it
# (Aura, any server without plugins) a float list goes through setNodeVectorProperty.
VECTOR_SET_PROCEDURE = "hmem.vector.set"
_PROCEDURE_NOT_FOUND = "Neo.ClientError.Procedure.ProcedureNotFound"
T = TypeVar("T")
_log = logging.getLogger("hmem.graph")


def _utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


def user_ref(secret: bytes, user_id: str) -> str:
    """How erasure markers and receipts name a user: a hash keyed with the server secret
    (``hmem.secret``), never the id. A bare SHA-256 let anyone holding the database
    confirm a guessed user id ("was alice@example.com erased?") in one lookup; without
    the secret no dictionary reverses this one. The operator, who holds the secret,
    finds a user's receipt by recomputing it (``UserData.erasure_receipt``)."""
    return keyed_ref(secret, "erasure-user", user_id)


# What an erased fact's id becomes in the audit trail: a keyed hash with this prefix.
ERASED_REF = "h1:"


def fact_ref(secret: bytes, user_id: str, fact_id: str) -> str:
    """An erased fact's id as the audit trail keeps it: keyed, and per user (the same id
    of two users gives two refs). Caller-chosen ids can carry text (a token, a name);
    the reader that must recognise an erased fact (a Graphiti sync must not bring it
    back) recomputes this from the id it holds."""
    return ERASED_REF + keyed_ref(secret, "audit-fact", f"{user_id}\x00{fact_id}")


class StoreBase:
    """A Neo4j database, its driver and hmem's catalog of statements."""

    _vector_set: bool | None = None  # whether the server has hmem.vector.set (asked once)

    def __init__(
        self,
        driver: Driver,
        *,
        database: str = "neo4j",
        embedding_dim: int = 384,
        max_fact_chars: int = 2000,
        max_entities_per_fact: int = 32,
        vector_index_min_facts: int = 5_000,
        vector_index_batch: int = 2_000,
        clock: Callable[[], datetime] = _utcnow,
        secret: bytes | None = None,
    ) -> None:
        """``secret``: the server secret (``hmem.secret.load_secret``) that keys the erasure
        receipts' user refs and erased facts' ids in the audit trail; every process of a
        deployment must pass the same one (a random one, the default, fits only a store no
        other process writes). ``vector_index_min_facts``: a user with more facts than this
        has them in the vector index (``fill_vector_index``, started by the write that
        passes it); a smaller user is searched by the exact scan, and writing its facts
        skips the index's update at commit. ``vector_index_batch``: facts per transaction of
        a fill."""
        self._driver = driver
        self._database = database
        self.embedding_dim = embedding_dim
        self.max_fact_chars = max_fact_chars
        self.max_entities_per_fact = max_entities_per_fact
        self.vector_index_min_facts = vector_index_min_facts
        self.vector_index_batch = vector_index_batch
        self._clock = clock
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    def _vector_set_available(self) -> bool:
        """Whether the server has ``hmem.vector.set`` (hmem's plugin), asked once. A
        server without it gets the float arrays plain Cypher reads first
        (``unpack_vectors``)."""
        if self._vector_set is None:
            [row] = self._read("schema_procedure_exists", procedure=VECTOR_SET_PROCEDURE)
            if row["present"]:
                self._vector_set = True
            else:
                self._without_plugin()
        return bool(self._vector_set)

    def _without_plugin(self) -> None:
        self._vector_set = False
        self.unpack_vectors()

    def _with_plugin(self, attempt: Callable[[bool], T]) -> T:
        """``attempt(plugin)``: with hmem's plugin when the server has it. A server that
        lost it (restarted without it) is noted and the attempt runs again in plain
        Cypher; nothing of the failed attempt was committed."""
        plugin = self._vector_set_available()
        try:
            return attempt(plugin)
        except neo.ClientError as exc:
            if not plugin or exc.code != _PROCEDURE_NOT_FOUND:
                raise
            self._without_plugin()
            return attempt(False)

    def unpack_vectors(self, batch: int = 2_000) -> int:
        """Give every fact whose vector is stored only as float32 bytes the float array
        plain Cypher and the vector index read; returns how many.

        With hmem's plugin a fact outside the vector index keeps its vector once, as
        the bytes the plugin's exact scan reads (write_apply.cypher). A store moved to
        a server without the plugin (Aura) needs the floats: the store runs this when
        it finds the plugin missing (``ensure_schema``, or the first write), in batches
        of ``batch`` facts across all users, before any plain statement relies on them.
        Such facts carry the label ``PackedVector``: a store with none costs one lookup
        of that label, not a scan of every fact."""
        done = 0
        while rows := self._read_values("admin_vectors_packed_only", limit=batch):
            payload = [
                {"user_id": r["user_id"], "id": r["id"], "embedding": unpacked(r["packed"])}
                for r in rows
            ]
            [row] = self._write_values("admin_vectors_unpack", rows=payload)
            if not row["unpacked"]:
                break  # erased meanwhile: the next scan would find the same rows
            done += int(row["unpacked"])
        if done:
            _log.info(
                "vectors: %d facts stored as bytes only got the float array (no hmem plugin)",
                done,
                extra={"facts": done},
            )
        return done

    def ensure_schema(self) -> None:
        """hmem's constraints and indexes (``apply_schema``). When the vector index was
        made now (a new store, or an older hmem's index over every fact), the users big
        enough for it are filled into it. On a server without hmem's plugin, facts
        stored with it get the float arrays plain Cypher reads (``unpack_vectors``)."""
        with translate_errors(self._driver):
            made = apply_schema(self._driver, self._database, self.embedding_dim)
        self._vector_set_available()
        if made:
            for row in self._read_values(
                "admin_vector_index_pending", min_facts=self.vector_index_min_facts
            ):
                self.fill_vector_index(row["user_id"])

    # -- the vector index holds the big users' facts ---------------------------------------
    def fill_vector_index(self, user_id: str) -> int:
        """Put all of the user's facts in the vector index; returns how many joined it.

        First the user's root says 'filling' (every later write labels its facts for the
        index, see _guard.cypher), then the facts written before are labelled
        ``IndexedFact`` in transactions of ``vector_index_batch`` (each commit updates
        the index: about 0.35 ms per fact measured), then the root says 'ready' and
        searches use the index for this user. Safe to run again, and concurrently: a
        fill that stopped is finished by the next one."""
        started = time.perf_counter()
        if not self._write_values("user_vector_index_begin", user_id=user_id):
            return 0  # no such user (erased)
        stmt = catalog.statement("user_vector_index_fill")
        params = stmt.bind({"user_id": user_id, "batch": self.vector_index_batch})

        def fill(plugin: bool) -> Record | None:
            # with the plugin, facts stored as bytes only get their float array here
            with translate_errors(self._driver), self._session() as session:
                # CALL ... IN TRANSACTIONS runs only in an auto-commit transaction
                return session.run(stmt.text_for(native=plugin, cypher25=False), params).single()

        row = self._with_plugin(fill)
        labelled = int(row["labelled"]) if row is not None else 0
        self._write_values("user_vector_index_ready", user_id=user_id)
        ms = round((time.perf_counter() - started) * 1000)
        _log.info(
            "vector index: %d facts of a user joined it in %d ms",
            labelled,
            ms,
            extra={"facts": labelled, "ms": ms},
        )
        return labelled

    def _after_write(self, user_id: str, vector_index: str | None, facts: int) -> None:
        """After a committed write: when the user now has more facts than
        ``vector_index_min_facts`` and they are not all in the vector index, fill it.
        The write stands whatever happens here: a fill that fails is logged and tried
        again by the user's next write."""
        if vector_index == "ready" or facts <= self.vector_index_min_facts:
            return
        try:
            self.fill_vector_index(user_id)
        except (HmemError, neo.Neo4jError, neo.DriverError) as exc:
            _log.warning(
                "vector index: filling it for a user failed (%s); the next write tries again",
                type(exc).__name__,
                extra={"error": type(exc).__name__},
            )

    def _write_values(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """One write statement in a transaction of its own; its rows."""
        return run_statement(self._driver, self._database, name, **params)

    def _now(self, value: datetime | None = None, name: str = "now") -> datetime:
        return require_aware(value, name) or self._clock()

    @staticmethod
    def _run(
        tx: ManagedTransaction, name: str, *, native: bool = False, **params: Any
    ) -> list[dict[str, Any]]:
        """Run a catalog statement in ``tx`` (its ``//native`` text when ``native``)."""
        stmt = catalog.statement(name)
        text = stmt.text_for(native=native, cypher25=False)
        return [r.data() for r in tx.run(text, stmt.bind(params))]

    def _read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return [r.data() for r in self._records(name, params)]

    def _read_values(
        self, name: str, *, native: bool = False, **params: Any
    ) -> list[dict[str, Any]]:
        """``_read`` for a statement that returns no nodes, relationships or paths: the
        rows as they came. ``Record.data()`` rebuilds every list and bytes value element
        by element (a float32 vector's 1,536 bytes one call each). ``native``: the
        statement's ``//native`` text."""
        return [dict(r) for r in self._records(name, params, native=native)]

    def _records(self, name: str, params: dict[str, Any], *, native: bool = False) -> list[Record]:
        """A read statement as one auto-commit query (one round trip, not the managed
        transaction's two: ``read_autocommit``)."""
        stmt = catalog.statement(name)
        text = stmt.text_for(native=native, cypher25=False)
        bound = stmt.bind(params)
        with translate_errors(self._driver):
            return read_autocommit(
                self._driver, self._database, lambda session: list(session.run(text, bound))
            )

    def _write(
        self,
        user_id: str,
        work: Callable[[ManagedTransaction], Any],
        *,
        accepted_at: datetime | None = None,
    ) -> Any:
        """Run ``work`` in one write transaction of ``user_id``, behind the erasure guard.

        ``accepted_at`` is when the write was accepted (a session: when the queue took
        it; default: now). If the user was erased at or after that time, or is being
        erased, nothing is written (``UserErasedError`` / ``ErasureInProgressError``).
        """
        accepted = accepted_at or self._clock()

        def guarded(tx: ManagedTransaction) -> Any:
            self._guard(tx, user_id, accepted)
            return work(tx)

        return self._in_write_transaction(guarded)

    def _in_write_transaction(self, work: Callable[[ManagedTransaction], Any]) -> Any:
        """Run ``work`` in one write transaction (retried on transient errors). Every
        caller's ``work`` starts with ``_guard``."""
        return self._committed(work)[0]

    def _committed(self, work: Callable[[ManagedTransaction], T]) -> tuple[T, list[str]]:
        """``_in_write_transaction``, with the bookmarks of the commit: what another
        process's reads wait for (``Memory.catch_up``)."""
        with translate_errors(self._driver), self._session() as session:
            result = session.execute_write(work)
            bookmarks = sorted(session.last_bookmarks().raw_values)
        FULLTEXT_LAG.wrote()  # the next search waits for Lucene to hold it
        return result, bookmarks

    def catch_up(self, bookmarks: list[str]) -> None:
        """Reads through this driver wait for ``bookmarks`` (another process's commits;
        see ``Memory.catch_up``), and the next search for Lucene to hold them."""
        self._driver.execute_query_bookmark_manager.update_bookmarks([], bookmarks)
        FULLTEXT_LAG.wrote()

    def _settle_fulltext(self) -> None:
        """Wait until the fulltext index holds this process's writes: an erasure is
        not done while Lucene still holds the text."""
        FULLTEXT_LAG.wrote()
        FULLTEXT_LAG.settle(self._driver, self._database)

    def _guard(
        self,
        tx: ManagedTransaction,
        user_id: str,
        accepted: datetime,
        statement: str = "user_guard",
        **params: Any,
    ) -> dict[str, Any]:
        """The erasure guard: ``statement`` is ``user_guard`` or one that starts with
        it (``_guard.cypher``) and reads more in the same round trip; its row."""
        [row] = self._run(
            tx,
            statement,
            user_id=user_id,
            user_ref=self._user_ref(user_id),
            now=self._clock(),
            **params,
        )
        erased_at = native(row["erased_at"])
        if erased_at is not None and erased_at >= accepted:
            raise UserErasedError("the user was erased after this write was accepted")
        if row["erasing"]:
            raise ErasureInProgressError("the user is being erased; write again after it")
        return row

    def _session(self) -> Session:
        """A session chained to ``execute_query``'s bookmark manager, which every read
        of the store uses too: on a cluster a read routed to another member waits until
        it has this process's acknowledged writes (read-your-writes); on one server the
        bookmarks cost nothing."""
        return self._driver.session(
            database=self._database,
            bookmark_manager=self._driver.execute_query_bookmark_manager,
        )

    def _user_ref(self, user_id: str) -> str:
        return user_ref(self._secret, user_id)

    def fact_ref(self, user_id: str, fact_id: str) -> str:
        """``fact_id`` of ``user_id`` as the audit trail keeps it once erased."""
        return fact_ref(self._secret, user_id, fact_id)

    def _audit_row(self, op: str, fact_ids: list[str], detail: dict[str, Any]) -> dict[str, Any]:
        """One audit event: the operation and ids, never memory text."""
        return {
            "id": new_id(),
            "at": self._clock(),
            "op": op,
            "fact_ids": fact_ids,
            "detail": json.dumps(detail, default=str, sort_keys=True),
        }

    def _audit(
        self,
        tx: ManagedTransaction,
        user_id: str,
        op: str,
        fact_ids: list[str],
        detail: dict[str, Any],
    ) -> None:
        self._run(tx, "audit_record", user_id=user_id, **self._audit_row(op, fact_ids, detail))

    def _get_tx(self, tx: ManagedTransaction, user_id: str, fact_id: str) -> Fact:
        rows = self._run(tx, "fact_get", user_id=user_id, fact_id=fact_id, believed_at=None)
        if not rows:
            raise NotFoundError(f"no fact {fact_id!r} for this user")
        return to_fact(rows[0]["fact"], rows[0]["entities"])
