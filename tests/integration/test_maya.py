"""The Maya story from the seeds, on a real Neo4j."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from neo4j import Driver

from hmem import Config, Memory, SupersedeReason
from hmem.demo import seed_demo
from tests.integration._recall_fixtures import local_embedder


def at(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 9, 0, tzinfo=UTC)


def test_london_to_paris_keeps_both_rows_and_both_clocks(memory: Memory, user_id: str) -> None:
    ids = seed_demo(memory, user_id)

    everything = {f.id: f for f in memory.facts(user_id=user_id, include_closed=True)}
    assert ids.london in everything
    assert ids.paris in everything
    london = everything[ids.london]
    assert london.known_to == at(2026, 3, 2)  # learned of the move on 2 March
    assert london.valid_to == at(2026, 3, 1)  # true until the move on 1 March
    assert london.close_reason is SupersedeReason.CONTRADICTION

    current = {f.id for f in memory.facts(user_id=user_id)}
    assert current == {ids.vegetarian, ids.peanut, ids.paris, ids.miso, ids.knee}
    assert len(current) == 5  # the seeds' ending: five current facts

    day_before_move = memory.facts(user_id=user_id, as_of_event=at(2026, 3, 1) - timedelta(days=1))
    texts = {f.text for f in day_before_move}
    assert "Maya lives in London." in texts
    assert ids.paris not in {f.id for f in day_before_move}

    before_told = memory.facts(user_id=user_id, as_of=at(2026, 3, 1))
    assert ids.london in {f.id for f in before_told}
    assert ids.paris not in {f.id for f in before_told}

    history = memory.history(ids.paris, user_id=user_id)
    assert history.fact.id == ids.paris
    [step] = history.predecessors
    assert step.fact.id == ids.london
    assert step.fact.valid_from == at(2019, 9, 1)
    assert step.fact.valid_to == at(2026, 3, 1)
    assert step.link.reason is SupersedeReason.CONTRADICTION
    assert step.link.new_id == ids.paris
    assert step.link.old_id == ids.london
    assert memory.history(ids.london, user_id=user_id).successors[0].fact.id == ids.paris


def test_duplicate_is_not_stored_twice(memory: Memory, user_id: str) -> None:
    seed_demo(memory, user_id)
    texts = [f.text for f in memory.facts(user_id=user_id, include_closed=True)]
    assert texts.count("Maya is vegetarian.") == 1
    again = memory.remember("  maya is VEGETARIAN ", user_id=user_id)
    assert again.added == []
    assert again.skipped == 1


def test_retraction_closes_without_successor_and_restore_undoes(
    memory: Memory, user_id: str
) -> None:
    ids = seed_demo(memory, user_id)
    closed = memory.close(ids.miso, user_id=user_id, at=at(2026, 6, 1), observed_at=at(2026, 6, 2))
    assert closed.valid_to == at(2026, 6, 1)
    assert closed.known_to == at(2026, 6, 2)
    # with `at` it ended then: still believed with that end (docs/time.md)
    assert closed.close_reason is SupersedeReason.ENDED and closed.withdrawn_at is None
    assert ids.miso not in {f.id for f in memory.facts(user_id=user_id)}
    assert ids.miso in {f.id for f in memory.facts(user_id=user_id, as_of_event=at(2026, 5, 1))}

    reopened = memory.restore(ids.miso, user_id=user_id)
    assert reopened.is_open
    assert reopened.valid_to is None
    assert reopened.close_reason is None

    # undo a supersession: London is believed again, the edge is gone, the audit keeps it
    london = memory.restore(ids.london, user_id=user_id)
    assert london.is_open
    assert memory.history(ids.paris, user_id=user_id).predecessors == []
    restore_events = [e for e in memory.audit(user_id=user_id) if e["op"] == "restore"]
    undone = restore_events[0]["detail"]["undone"]
    assert undone[0]["new_id"] == ids.paris
    assert undone[0]["reason"] == "contradiction"


def test_user_edit_means_never_true(memory: Memory, user_id: str) -> None:
    wrong = memory.remember(
        "Maya works at Acme Corp.", user_id=user_id, observed_at=at(2026, 1, 5)
    ).added[0]
    fixed = memory.remember(
        "Maya works at Apex Labs.",
        user_id=user_id,
        observed_at=at(2026, 1, 6),
        supersedes=[wrong],
        reason=SupersedeReason.USER_EDIT,
    ).added[0]
    old = memory.get(wrong, user_id=user_id)
    assert old.valid_to == old.valid_from  # an empty world window: it was never true
    for day in (at(2026, 1, 5), at(2026, 1, 10)):
        assert wrong not in {f.id for f in memory.facts(user_id=user_id, as_of_event=day)}
    # but it *was* believed on 5 January
    believed = {f.id for f in memory.facts(user_id=user_id, as_of=at(2026, 1, 5))}
    assert wrong in believed
    assert fixed not in believed


def test_export_round_trips_the_story(memory: Memory, user_id: str) -> None:
    ids = seed_demo(memory, user_id)
    dump = memory.export(user_id)
    assert {f.id for f in dump.facts} == {
        ids.vegetarian,
        ids.peanut,
        ids.london,
        ids.marathon,
        ids.paris,
        ids.miso,
        ids.knee,
    }
    assert {(s.new_id, s.old_id) for s in dump.supersessions} == {
        (ids.paris, ids.london),
        (ids.knee, ids.marathon),
    }
    assert {e.name for e in dump.entities} == {"Maya", "London", "Paris", "Berlin Marathon", "Miso"}
    again = type(dump).model_validate_json(dump.model_dump_json())
    assert again == dump


def test_the_demo_question_finds_the_cat_by_meaning(
    config: Config, driver: Driver, user_id: str
) -> None:
    """``make demo``'s question shares no word with the answer ("pets" / "cat"), and every
    fact names Maya: only the dense part can put the cat first (the local MiniLM here)."""
    with Memory(config, driver=driver, embedder=local_embedder()) as memory:
        ids = seed_demo(memory, user_id)
        hits = memory.search("What pets does Maya have?", user_id=user_id).hits
        memory.recall.flush()
    assert hits[0].fact.id == ids.miso
    assert hits[0].parts["dense"] > 0
    assert hits[0].parts["lexical"] == 0  # found by meaning, not by a shared word
