"""The warm-up's searches of real data (``hmem.warm_up``): they touch nothing, return
nothing to anyone, and the users they pick are the ones written to most recently."""

from __future__ import annotations

from neo4j import Driver

from hmem import Config, Memory
from hmem.warm_up import QUESTIONS, recent_users, warm_users


def _used(memory: Memory, user_id: str) -> list[object]:
    return [f.last_used_at for f in memory.facts(user_id=user_id)]


def test_warm_up_reads_real_data_and_touches_nothing(
    memory: Memory, user_id: str, other_user: str
) -> None:
    memory.remember("Ana likes to paint watercolours of Lisbon.", user_id=user_id)
    memory.remember("Ben likes to keep bees in Porto.", user_id=other_user)

    memory.warm_up(users=[user_id, other_user])
    runs = warm_users(memory.recall, [user_id])  # rounds of the questions and both as-ofs
    assert runs >= len(QUESTIONS) + 2 and runs % (len(QUESTIONS) + 2) == 0
    assert warm_users(memory.recall, []) == 0
    memory.recall.flush()
    assert _used(memory, user_id) == [None]
    assert _used(memory, other_user) == [None]

    # a caller's search of a warm-up question: its own user's facts only, and it is the
    # one search that counts as a use
    found = memory.search(QUESTIONS[0], user_id=other_user)
    assert [h.fact.text for h in found.hits] == ["Ben likes to keep bees in Porto."]
    assert "Ana" not in found.context
    memory.recall.flush()
    assert _used(memory, user_id) == [None]
    assert all(used is not None for used in _used(memory, other_user))


def test_recent_users_are_the_last_written(
    config: Config, driver: Driver, memory: Memory, user_id: str, other_user: str
) -> None:
    memory.remember("Ana likes to paint.", user_id=user_id)
    memory.remember("Ben likes bees.", user_id=other_user)
    assert recent_users(driver, config.neo4j_database, 2) == [other_user, user_id]
    assert recent_users(driver, config.neo4j_database, 0) == []
