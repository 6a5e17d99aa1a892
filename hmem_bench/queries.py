"""The few Cypher statements the benchmark runs outside hmem's store (clearing
graphiti's benchmark groups, whole-database counts, heap): kept in ``queries/*.cypher``
like every other statement, never built in Python."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["query"]


@cache
def query(name: str) -> str:
    return (resources.files("hmem_bench") / "queries" / f"{name}.cypher").read_text("utf-8")
