"""Cluster readiness on the one local server: a ``neo4j://`` (routing) URI works for
every kind of call, and writes leave bookmarks that the store's reads wait for."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from neo4j import Driver

from hmem import Config, Memory


def test_routing_uri_serves_writes_reads_search_and_erasure(config: Config, driver: Driver) -> None:
    uri = config.neo4j_uri.replace("bolt://", "neo4j://", 1)
    assert uri.startswith("neo4j://")
    settings = Config(**{**config.model_dump(), "neo4j_uri": uri})
    user = f"route-{uuid.uuid4().hex[:10]}"
    when = datetime(2026, 3, 2, tzinfo=UTC)
    with Memory(settings) as memory:
        bookmarks = memory._driver.execute_query_bookmark_manager
        before = set(bookmarks.get_bookmarks())
        try:
            london = memory.remember(
                "Maya lives in London.", user_id=user, observed_at=when, entities=["Maya"]
            )
            # the write's bookmark reached the manager every read of the store uses
            assert set(bookmarks.get_bookmarks()) != before
            paris = memory.remember(
                "Maya moved to Paris.", user_id=user, observed_at=when, supersedes=london.added
            )
            [now] = memory.facts(user_id=user)
            assert now.id == paris.added[0]
            found = memory.search("Where is Maya now, Paris?", user_id=user)
            assert found.hits[0].fact.id == paris.added[0]
        finally:
            counts = memory.erase_user(user)
        assert counts["facts"] == 2
        assert memory.facts(user_id=user, include_closed=True) == []
