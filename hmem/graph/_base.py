"""The plumbing every part of the store shares: the driver, the catalog runner, the
clock, transactions and the audit trail."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from neo4j import Driver, ManagedTransaction

from hmem.errors import NotFoundError
from hmem.graph import catalog
from hmem.graph._records import to_fact, translate_errors
from hmem.graph.schema import apply_schema
from hmem.models import Fact, require_aware

__all__ = ["StoreBase", "new_id"]


def _utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


class StoreBase:
    """A Neo4j database, its driver and hmem's catalog of statements."""

    def __init__(
        self,
        driver: Driver,
        *,
        database: str = "neo4j",
        embedding_dim: int = 384,
        max_fact_chars: int = 2000,
        max_entities_per_fact: int = 32,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._driver = driver
        self._database = database
        self.embedding_dim = embedding_dim
        self.max_fact_chars = max_fact_chars
        self.max_entities_per_fact = max_entities_per_fact
        self._clock = clock

    def ensure_schema(self) -> None:
        with translate_errors():
            apply_schema(self._driver, self._database, self.embedding_dim)

    def _now(self, value: datetime | None = None, name: str = "now") -> datetime:
        return require_aware(value, name) or self._clock()

    @staticmethod
    def _run(tx: ManagedTransaction, name: str, **params: Any) -> list[dict[str, Any]]:
        stmt = catalog.statement(name)
        return [r.data() for r in tx.run(stmt.text, stmt.bind(params))]

    def _read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        stmt = catalog.statement(name)
        with translate_errors():
            records, _, _ = self._driver.execute_query(
                stmt.text, stmt.bind(params), database_=self._database, routing_="r"
            )
        return [r.data() for r in records]

    def _write(self, work: Callable[[ManagedTransaction], Any]) -> Any:
        with translate_errors(), self._driver.session(database=self._database) as session:
            return session.execute_write(work)

    def _audit(
        self,
        tx: ManagedTransaction,
        user_id: str,
        op: str,
        fact_ids: list[str],
        detail: dict[str, Any],
    ) -> None:
        self._run(
            tx,
            "audit_record",
            user_id=user_id,
            id=new_id(),
            at=self._clock(),
            op=op,
            fact_ids=fact_ids,
            detail=json.dumps(detail, default=str, sort_keys=True),
        )

    def _get_tx(self, tx: ManagedTransaction, user_id: str, fact_id: str) -> Fact:
        rows = self._run(tx, "fact_get", user_id=user_id, fact_id=fact_id)
        if not rows:
            raise NotFoundError(f"no fact {fact_id!r} for this user")
        return to_fact(rows[0]["fact"], rows[0]["entities"])
