"""A write that names no stored fact is one statement (write_apply.cypher): the erasure
guard, the open-text and id checks and every change in one round trip. These tests pin
what the checks in Python used to guarantee: duplicates skipped and left out of the
episode and the audit, a taken id rolls the whole write back, an erased user gets
nothing written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from neo4j import Driver

from hmem import ConflictError, FactDraft, Memory
from hmem.errors import UserErasedError
from hmem.graph.store import session_episode_id


def _facts(driver: Driver, user_id: str) -> list[str]:
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact {user_id: $u}) RETURN f.text AS text ORDER BY text", u=user_id
    )
    return [r["text"] for r in records]


def test_an_open_text_is_skipped_and_left_out_of_the_episode_and_the_audit(
    memory: Memory, user_id: str
) -> None:
    first = memory.remember("Maya lives in Paris.", user_id=user_id).added
    result = memory.remember_many(
        [FactDraft(text="Maya lives in Paris."), FactDraft(text="Maya has a cat.")],
        user_id=user_id,
        session_id="chat-1",
    )
    assert result.skipped == 1
    assert len(result.added) == 1
    assert result.added[0] not in first
    # the episode holds the fact written now, not the open one the duplicate matched
    episode = memory.store.episode_facts(user_id, session_episode_id("chat-1"))
    assert episode == result.added
    newest = memory.audit(user_id=user_id)[0]
    assert newest["op"] == "write"
    assert newest["fact_ids"] == result.added


def test_a_write_of_duplicates_only_writes_no_audit_event(memory: Memory, user_id: str) -> None:
    memory.remember("Maya lives in Paris.", user_id=user_id)
    events = len(memory.audit(user_id=user_id))
    result = memory.remember_many([FactDraft(text="maya lives in paris")], user_id=user_id)
    assert (result.added, result.skipped) == ([], 1)
    assert len(memory.audit(user_id=user_id)) == events


def test_a_taken_id_rolls_the_whole_write_back(
    memory: Memory, user_id: str, driver: Driver
) -> None:
    memory.remember("Maya lives in Paris.", user_id=user_id, fact_id="home")
    events = len(memory.audit(user_id=user_id))
    with pytest.raises(ConflictError, match="'home' already exists"):
        memory.remember_many(
            [FactDraft(text="Maya has a cat."), FactDraft(text="Maya swims.", id="home")],
            user_id=user_id,
            session_id="chat-2",
        )
    assert _facts(driver, user_id) == ["Maya lives in Paris."]
    assert memory.store.episode_facts(user_id, session_episode_id("chat-2")) is None
    assert len(memory.audit(user_id=user_id)) == events


def test_a_taken_id_with_the_same_open_text_is_a_skip_not_a_conflict(
    memory: Memory, user_id: str
) -> None:
    """A retried write with the caller's own ids: the second time nothing is added."""
    drafts = [FactDraft(text="Maya has a cat.", id="cat"), FactDraft(text="Maya swims.", id="swim")]
    assert memory.remember_many(drafts, user_id=user_id).added == ["cat", "swim"]
    again = memory.remember_many(drafts, user_id=user_id)
    assert (again.added, again.skipped) == ([], 2)


def test_a_user_erased_after_the_write_was_accepted_gets_nothing_written(
    memory: Memory, user_id: str, driver: Driver
) -> None:
    accepted = datetime.now(UTC) - timedelta(seconds=5)
    memory.remember("Maya lives in Paris.", user_id=user_id)
    memory.erase_user(user_id)
    with pytest.raises(UserErasedError):
        memory.store.write(user_id, [FactDraft(text="Maya has a cat.")], accepted_at=accepted)
    assert _facts(driver, user_id) == []
    # a write accepted after the erasure lands
    assert memory.store.write(user_id, [FactDraft(text="Maya has a dog.")]).added
