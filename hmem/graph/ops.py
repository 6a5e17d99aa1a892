"""Service-level reads that span users by design: readiness and aggregate gauges.

They return counts and states only, never a user id or any text.
"""

from __future__ import annotations

from datetime import UTC, datetime

from neo4j import Driver

from hmem.errors import HmemError
from hmem.graph._driver import breaker, run_statement
from hmem.graph.schema import FULLTEXT_INDEX, VECTOR_INDEX, check_vector_index, show_index

__all__ = ["memory_stats", "readiness"]


def readiness(driver: Driver, database: str, dim: int) -> dict[str, str]:
    """``{"neo4j": ..., "schema": ...}``, each ``"ok"`` or a reason; never raises."""
    checks = {"neo4j": "ok", "schema": "ok"}
    if breaker(driver).is_open:  # it failed moments ago: answer now, not after a timeout
        return {"neo4j": "unreachable (failed moments ago)", "schema": "unknown"}
    try:
        driver.verify_connectivity()
    except Exception as exc:  # any driver failure means "not ready", with its class name
        breaker(driver).failure()
        checks["neo4j"] = f"unreachable ({type(exc).__name__})"
        checks["schema"] = "unknown"
        return checks
    breaker(driver).success()
    try:
        missing = []
        if not check_vector_index(driver, database, dim):
            missing.append(VECTOR_INDEX)
        for index in (FULLTEXT_INDEX,):
            row = show_index(driver, database, index)
            if row is None:
                missing.append(index)
            elif row.get("state") != "ONLINE":
                missing.append(f"{index} ({row.get('state')})")
        if missing:
            checks["schema"] = "missing: " + ", ".join(missing) + " (run `hmem init-schema`)"
    except HmemError as exc:
        checks["schema"] = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a driver error while inspecting: not ready
        checks["schema"] = f"unknown ({type(exc).__name__})"
    return checks


def memory_stats(driver: Driver, database: str) -> dict[str, int]:
    """How many users, current facts, and current facts per user (p50, p95, max)."""
    [row] = run_statement(driver, database, "admin_memory_stats", now=datetime.now(UTC))
    return {k: int(v) for k, v in row.items()}
