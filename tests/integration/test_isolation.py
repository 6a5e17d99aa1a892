"""Two users with identical facts and entity names: nothing crosses the boundary."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from neo4j import Driver

from hmem import ConflictError, EntityRef, Memory, NotFoundError
from hmem.models import FactDraft


def _seed(memory: Memory, uid: str) -> dict[str, str]:
    when = datetime(2025, 1, 14, tzinfo=UTC)
    maya = EntityRef(name="Maya", type="person")
    sam = EntityRef(name="Sam", type="person", aliases=["Sammy"])
    ids = {}
    for key, text in (("london", "Maya lives in London."), ("sam", "Maya's brother is Sam.")):
        ids[key] = memory.remember(
            text, user_id=uid, observed_at=when, entities=[maya, sam], embedding=[0.1] * 384
        ).added[0]
    return ids


def _snapshot(memory: Memory, uid: str) -> str:
    dump = memory.export(uid)
    return dump.model_copy(
        update={"exported_at": datetime(2000, 1, 1, tzinfo=UTC)}
    ).model_dump_json()


def test_every_operation_stays_inside_one_user(
    memory: Memory, user_id: str, other_user: str, driver: Driver
) -> None:
    mine = _seed(memory, user_id)
    theirs = _seed(memory, other_user)
    before = _snapshot(memory, other_user)

    # read
    with pytest.raises(NotFoundError):
        memory.get(theirs["london"], user_id=user_id)
    with pytest.raises(NotFoundError):
        memory.history(theirs["london"], user_id=user_id)
    assert {f.id for f in memory.facts(user_id=user_id)} == set(mine.values())
    assert {f.id for f in memory.facts(user_id=user_id, include_closed=True)} == set(mine.values())

    # supersede / relate with the other's id: refused, nothing written on either side
    mine_before = _snapshot(memory, user_id)
    with pytest.raises(NotFoundError):
        memory.remember("Maya lives in Paris.", user_id=user_id, supersedes=[theirs["london"]])
    with pytest.raises(NotFoundError):
        memory.remember("Maya likes Sam.", user_id=user_id, relates=[theirs["sam"]])
    assert _snapshot(memory, user_id) == mine_before

    # close / restore / erase the other's fact
    with pytest.raises(NotFoundError):
        memory.close(theirs["london"], user_id=user_id)
    with pytest.raises(NotFoundError):
        memory.restore(theirs["london"], user_id=user_id)
    with pytest.raises(NotFoundError):
        memory.erase(theirs["london"], user_id=user_id)

    # a caller-chosen id equal to the other user's id is a separate fact, no collision
    same_id = memory.remember("Maya has a cat.", user_id=user_id, fact_id=theirs["london"]).added
    assert same_id == [theirs["london"]]
    assert memory.get(theirs["london"], user_id=user_id).text == "Maya has a cat."
    assert memory.get(theirs["london"], user_id=other_user).text == "Maya lives in London."

    # entities are per user: two "Sam"s, each linked only to its own user's facts
    records, _, _ = driver.execute_query(
        "MATCH (e:Entity) WHERE e.canonical = $name AND e.user_id IN $users "
        "RETURN e.user_id AS owner, COUNT { (e)<-[:MENTIONS]-(f) WHERE f.user_id <> e.user_id }"
        " AS foreign",
        name="sam",
        users=[user_id, other_user],
    )
    assert sorted(r["owner"] for r in records) == sorted([user_id, other_user])
    assert all(r["foreign"] == 0 for r in records)

    # export holds only this user's data
    dump = memory.export(user_id)
    assert {f.user_id for f in dump.facts} == {user_id}
    assert {e.user_id for e in dump.entities} == {user_id}

    # erase the whole user: the other is untouched
    memory.erase_user(user_id)
    assert memory.store.counts(user_id)["any_nodes"] == 0
    assert _snapshot(memory, other_user) == before

    # and no edge anywhere joins two users
    records, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) WHERE a.user_id IN $users AND a.user_id <> b.user_id "
        "RETURN count(r) AS crossing",
        users=[user_id, other_user],
    )
    assert records[0]["crossing"] == 0


def test_supersede_of_closed_fact_is_a_conflict(memory: Memory, user_id: str) -> None:
    first = memory.remember("Maya lives in London.", user_id=user_id).added[0]
    memory.remember("Maya lives in Paris.", user_id=user_id, supersedes=[first])
    with pytest.raises(ConflictError):
        memory.remember("Maya lives in Rome.", user_id=user_id, supersedes=[first])
    assert [f.text for f in memory.facts(user_id=user_id)] == ["Maya lives in Paris."]


def test_one_successor_per_target_per_write(memory: Memory, user_id: str) -> None:
    """Two drafts of one write may not both replace one stored fact (issue 45 N8: 300
    drafts x 64 targets made 19,200 edges): the write is refused whole, with the way out
    in the error, and a write naming one successor, the other relating, goes through."""
    old = memory.remember("Maya is vegetarian.", user_id=user_id).added[0]
    both = [
        FactDraft(text="Maya eats fish on Fridays.", supersedes=[{"target_id": old}]),
        FactDraft(
            text="Maya is pescatarian.", supersedes=[{"target_id": old, "reason": "refinement"}]
        ),
    ]
    with pytest.raises(ConflictError, match="name one successor"):
        memory.remember_many(both, user_id=user_id)
    assert [f.id for f in memory.facts(user_id=user_id)] == [old]  # nothing half-written
    assert memory.get(old, user_id=user_id).is_open
    result = memory.remember_many(both[1:], user_id=user_id)
    assert result.superseded == [old]
    history = memory.history(old, user_id=user_id)
    assert {s.fact.id for s in history.successors} == set(result.added)
