"""Warm-up searches of real data, so a process's first search costs what a later one does.

``Memory.warm_up`` first searches a user that cannot exist: that plans the read
statement and runs the embedder once, but reads no rows, so the operators that handle
rows (Neo4j's, then the driver's decoding and hmem's ranking) first ran on a caller's
search, which took 2 to 4 times a warm one (`hmem bench mcp`, issue 36). Here the same
questions are asked of users who have data, through a read path of their own:

- the results are dropped here, inside the process: nothing is returned, cached for a
  caller, logged with a user id, or traced (``Memory.search``'s span is not used);
- nothing is written: the read path is built with ``touch=False``, so no
  ``last_used_at`` changes (a warm-up is not a use, and episodic expiry must not see it);
- its question-vector cache is its own, dropped afterwards, and holds only the fixed
  questions below, never a caller's.

So no user's data or questions reach another user: the only thing shared afterwards is
what any search leaves behind (Neo4j's plans and page cache, the JIT-compiled code).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hmem.graph._driver import run_statement
from hmem.recall import Recall

if TYPE_CHECKING:
    from neo4j import Driver

    from hmem.search_options import SearchOptions

__all__ = ["QUESTIONS", "RECENT_USERS", "recent_users", "warm_users"]

# Users whose data ``Memory.warm_up`` searches when it is not told whose: one is enough
# to warm the code, a few warm the pages of the users most likely to ask first.
RECENT_USERS = 3

# Generic questions in the shapes a search takes: plain, about the past, no word of
# its own, and both as-of reads.
QUESTIONS = (
    "What does the user like to do?",
    "Where did the user live before 2020?",
    "Who?",
)


def recent_users(driver: Driver, database: str, limit: int) -> list[str]:
    """The stored ids of the ``limit`` users written to most recently (newest first)."""
    if limit <= 0:
        return []
    rows = run_statement(driver, database, "admin_warm_up_users", limit=limit)
    return [str(row["user_id"]) for row in rows]


def warm_users(
    recall: Recall, user_ids: Sequence[str], *, budget_s: float = 3.0, max_rounds: int = 30
) -> int:
    """Search each user's own data through a copy of ``recall`` with ``QUESTIONS`` (and
    as of now, both ways), the results dropped; nothing is touched. Rounds of these
    repeat while Neo4j's server time still falls (a fresh server took ~50 searches to
    go from 55 ms to 7: its JIT), at most ``budget_s`` seconds. The number of searches
    run."""
    quiet = Recall(
        recall.search_backend,
        weights=recall.weights,
        embedder=recall.embedder,
        touch=False,
        names_share=recall.names_share,
    )
    now = datetime.now(UTC)
    shapes: list[tuple[str, SearchOptions]] = [(q, {}) for q in QUESTIONS]
    shapes += [(QUESTIONS[0], {"as_of": now}), (QUESTIONS[0], {"as_of_event": now})]
    runs, best, stale = 0, math.inf, 0
    deadline = time.monotonic() + budget_s
    try:
        for _ in range(max_rounds if user_ids else 0):
            server_ms = []
            for user_id in user_ids:
                for question, options in shapes:
                    found = quiet.search(question, user_id=user_id, **options)
                    server_ms.append(found.timings.server_ms)
                    runs += 1
            typical = statistics.median(server_ms)
            best, stale = (typical, 0) if typical < 0.9 * best else (best, stale + 1)
            if stale >= 3 or time.monotonic() > deadline:
                break
    finally:
        quiet.close()
    return runs
