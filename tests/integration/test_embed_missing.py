"""A model switched on after an offline start (issue 49 item 1): facts written with no
embedding model have no vector, so dense search never finds them; ``embed_missing``
(run by ``hmem serve --demo`` / ``--init-schema`` at start, with progress) gives them one
from the configured model, and the paraphrase is found."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from neo4j import Driver

from hmem import Config, Memory
from tests.integration._recall_fixtures import local_embedder

DAY = datetime(2025, 1, 14, 9, tzinfo=UTC)


def test_facts_written_offline_get_vectors_once_a_model_is_on(
    config: Config, driver: Driver
) -> None:
    user = f"offline-{uuid.uuid4().hex[:10]}"
    offline = config.model_copy(update={"embed_provider": "none"})
    with Memory(offline, driver=driver) as memory:  # the first, offline `make demo`
        for text in ("Maya has a serious peanut allergy.", "Maya lives in Paris."):
            memory.remember(text, user_id=user, observed_at=DAY, entities=["Maya"])
        assert memory.embed_missing() == 0  # no model: nothing to do, nothing said
    embedder = local_embedder()
    with Memory(config, driver=driver, embedder=embedder) as memory:
        try:
            # before: the paraphrase shares no word with the fact, and it has no vector
            before = memory.search("Which foods should she avoid?", user_id=user)
            assert "Maya has a serious peanut allergy." not in [h.fact.text for h in before.hits]

            seen: list[int] = []
            done = memory.embed_missing(progress=seen.append)
            assert done >= 2 and sum(seen) == done  # other tests' offline facts count too
            rows, _, _ = driver.execute_query(
                "MATCH (f:Fact {user_id: $u}) WHERE f.embedding IS NULL "
                "AND f.embedding_f32le IS NULL RETURN count(f) AS n",
                u=user,
                database_=config.neo4j_database,
            )
            assert rows[0]["n"] == 0
            after = memory.search("Which foods should she avoid?", user_id=user)
            assert after.hits[0].fact.text == "Maya has a serious peanut allergy."
            assert memory.embed_missing() == 0  # a rerun finds nothing left
        finally:
            memory.erase_user(user)
