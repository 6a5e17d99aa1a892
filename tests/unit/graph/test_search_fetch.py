"""How many of a big user's nearest the filtered SEARCH fetches (no server needed)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from neo4j import Driver

from hmem.config import Config
from hmem.graph.search import FactSearch, Question

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def _fetch(search: FactSearch, mode: str, k_dense: int = 60) -> int:
    params = search._params(
        Question(
            "user-1", vector=[0.1] * 8, lucene=None, entity_grams=[], mode=mode,  # type: ignore[arg-type]
            now=NOW, k_dense=k_dense, k_lexical=30,
        )
    )  # fmt: skip
    return int(params["fetch_search"])


def test_fetch_is_k_dense_times_the_overfetch_and_more_for_asof() -> None:
    search = FactSearch(cast(Driver, object()), filtered_search=True)
    assert search.search_overfetch == Config.model_fields["search_filtered_overfetch"].default
    assert _fetch(search, "current") == 60 * 2
    assert _fetch(search, "history") == 60 * 2
    assert _fetch(search, "asof") == 60 * 10
    assert _fetch(search, "asof_history") == 60 * 10
    wide = FactSearch(cast(Driver, object()), filtered_search=True, search_overfetch=20)
    assert _fetch(wide, "asof") == 60 * 20  # never less than the current view's
    capped = FactSearch(cast(Driver, object()), filtered_search=True, index_max_fetch=100)
    assert _fetch(capped, "asof") == 100


def test_each_term_is_asked_for_all_its_facts_up_to_the_term_max() -> None:
    """One fulltext query per term, asking one more than ``lexical_term_max``: a term
    found that often is left out rather than cut in Lucene's (global) order."""
    search = FactSearch(cast(Driver, object()), filtered_search=False)
    for k_lexical in (30, 200):
        params = search._params(
            Question(
                "user-1", vector=None, lucene="live OR paris", names=["maya"], entity_grams=[],
                mode="current", now=NOW, k_lexical=k_lexical,
            )
        )  # fmt: skip
        assert params["fetch_term"] == 1_001
        assert params["lucene_terms"] == ["live", "paris"]
        assert params["lucene_names"] == ["maya"]
    small = FactSearch(cast(Driver, object()), filtered_search=False, lexical_term_max=10)
    params = small._params(
        Question("user-1", vector=None, lucene=None, entity_grams=[], mode="current", now=NOW)
    )
    assert (params["fetch_term"], params["lucene_terms"]) == (11, [])
