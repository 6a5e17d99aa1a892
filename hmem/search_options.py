"""The options of a search, declared once: the surface's calls
(``hmem.surface``), the embedded read path (``hmem.recall.Recall.search``) and the
HTTP schema (``hmem.api.schemas.SearchIn``) all take them from here. A module of its
own, below the read path, so the HTTP client can use it without loading the read path."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

__all__ = ["SEARCH_DEFAULTS", "AsOfOptions", "SearchOptions"]


class AsOfOptions(TypedDict, total=False):
    """Which past a read sees: ``as_of`` what was believed at that instant (belief
    time), ``as_of_event`` what was true in the world then (world time). Neither: now."""

    as_of: datetime | None
    as_of_event: datetime | None


class SearchOptions(AsOfOptions, total=False):
    """How ``search`` looks: ``k`` facts at most (30), packed into ``token_budget``
    tokens (4000), in the past ``AsOfOptions`` names; ``now`` is the moment of asking,
    for dates in the query ("yesterday") and recency (default: the clock)."""

    k: int
    token_budget: int
    now: datetime | None


#: What ``search`` does with an option not given (the embedded memory's and the API's).
SEARCH_DEFAULTS: SearchOptions = {"k": 30, "token_budget": 4000}
