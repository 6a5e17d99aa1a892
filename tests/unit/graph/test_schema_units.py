"""Schema inspection when Neo4j cannot report an index's progress."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j.exceptions import DatabaseError, Neo4jError

from hmem.graph.schema import check_vector_index, show_index


class _Driver:
    """Answers every query by raising ``error`` (the driver's own exception class)."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.calls = 0

    def execute_query(self, *_: Any, **__: Any) -> Any:
        self.calls += 1
        # The driver builds server failures this way from a Bolt FAILURE message.
        raise Neo4jError._hydrate_neo4j(
            code="Neo.DatabaseError.Statement.ExecutionFailed", message=self.message
        )


def test_a_populating_index_whose_progress_neo4j_cannot_compute_reads_as_populating() -> None:
    driver = _Driver("Invalid progress specified: 290000/155000")
    row = show_index(driver, "neo4j", "fact_embedding")  # type: ignore[arg-type]
    assert row == {"name": "fact_embedding", "state": "POPULATING", "options": None}
    # exists, dimension unknown until online: not a SchemaError, not "absent"
    assert check_vector_index(driver, "neo4j", 384) is True  # type: ignore[arg-type]
    assert driver.calls == 2


def test_other_database_errors_still_raise() -> None:
    driver = _Driver("Something else broke")
    with pytest.raises(DatabaseError, match="Something else broke"):
        show_index(driver, "neo4j", "fact_embedding")  # type: ignore[arg-type]
