"""Bad input: each a clear typed error, and nothing written."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from hmem import (
    Config,
    ConflictError,
    DimensionMismatchError,
    HmemError,
    Memory,
    NaiveDatetimeError,
    NotFoundError,
    PolicyRefusal,
    SchemaError,
    TemporalOrderError,
    TextTooLongError,
    ValidationError,
)
from hmem.graph import GraphStore

JAN = datetime(2026, 1, 10, tzinfo=UTC)


def cases(
    memory: Memory, uid: str, existing: str, open_id: str
) -> list[tuple[str, type[HmemError], Callable[[], object]]]:
    return [
        (
            "unknown supersede id",
            NotFoundError,
            lambda: memory.remember("Maya lives in Oslo.", user_id=uid, supersedes=["nope"]),
        ),
        (
            "unknown relate id",
            NotFoundError,
            lambda: memory.remember("Maya likes Oslo.", user_id=uid, relates=["nope"]),
        ),
        ("unknown get id", NotFoundError, lambda: memory.get("nope", user_id=uid)),
        ("unknown close id", NotFoundError, lambda: memory.close("nope", user_id=uid)),
        ("unknown erase id", NotFoundError, lambda: memory.erase("nope", user_id=uid)),
        (
            "end before start",
            TemporalOrderError,
            lambda: memory.remember(
                "Maya was in Rome.",
                user_id=uid,
                valid_from=JAN,
                valid_to=datetime(2025, 1, 1, tzinfo=UTC),
            ),
        ),
        (
            "close before start",
            TemporalOrderError,
            lambda: memory.close(
                open_id, user_id=uid, at=datetime(2020, 1, 1, tzinfo=UTC), observed_at=JAN
            ),
        ),
        (
            "naive observed_at",
            NaiveDatetimeError,
            lambda: memory.remember(
                "Maya is in Rome.", user_id=uid, observed_at=datetime(2026, 1, 1)
            ),
        ),
        (
            "naive valid_from",
            NaiveDatetimeError,
            lambda: memory.remember(
                "Maya is in Rome.", user_id=uid, valid_from=datetime(2026, 1, 1)
            ),
        ),
        (
            "naive as_of",
            NaiveDatetimeError,
            lambda: memory.facts(user_id=uid, as_of=datetime(2026, 1, 1)),
        ),
        (
            "wrong vector dimension",
            DimensionMismatchError,
            lambda: memory.remember("Maya is in Rome.", user_id=uid, embedding=[0.1] * 3),
        ),
        ("over-long text", TextTooLongError, lambda: memory.remember("word " * 1000, user_id=uid)),
        ("empty text", ValidationError, lambda: memory.remember("", user_id=uid)),
        (
            "importance out of range",
            ValidationError,
            lambda: memory.remember("Maya is in Rome.", user_id=uid, importance=11),
        ),
        ("empty user id", ValidationError, lambda: memory.remember("Maya is in Rome.", user_id="")),
        (
            "a credential",
            PolicyRefusal,
            lambda: memory.remember("My password is hunter2-Blue!", user_id=uid),
        ),
        ("closing a closed fact", ConflictError, lambda: memory.close(existing, user_id=uid)),
    ]


def test_each_bad_input_is_typed_and_writes_nothing(memory: Memory, user_id: str) -> None:
    existing = memory.remember("Maya lives in Lisbon.", user_id=user_id, observed_at=JAN).added[0]
    memory.close(existing, user_id=user_id, at=JAN, observed_at=JAN)
    open_id = memory.remember("Maya reads novels.", user_id=user_id, observed_at=JAN).added[0]
    before = memory.export(user_id)
    counts = memory.store.counts(user_id)
    for name, error, call in cases(memory, user_id, existing, open_id):
        with pytest.raises(error) as caught:
            call()
        assert str(caught.value), name
        assert memory.store.counts(user_id) == counts, f"{name} wrote something"
    assert memory.export(user_id).facts == before.facts


def test_restoring_an_open_fact_is_a_conflict(memory: Memory, user_id: str) -> None:
    open_id = memory.remember("Maya likes tea.", user_id=user_id).added[0]
    with pytest.raises(ConflictError, match="nothing to restore"):
        memory.restore(open_id, user_id=user_id)


def test_a_failed_batch_writes_none_of_its_facts(memory: Memory, user_id: str) -> None:
    from hmem.models import FactDraft

    with pytest.raises(NotFoundError):
        memory.remember_many(
            [
                FactDraft(text="Maya lives in Oslo."),
                FactDraft(text="Maya moved to Bergen.", supersedes=[{"target_id": "ghost"}]),
            ],
            user_id=user_id,
        )
    assert memory.facts(user_id=user_id, include_closed=True) == []


def test_index_dimension_mismatch_is_a_schema_error(memory: Memory, config: Config) -> None:
    wrong = GraphStore(memory.store._driver, database=config.neo4j_database, embedding_dim=128)
    with pytest.raises(SchemaError, match="384 dimensions"):
        wrong.ensure_schema()


def test_schema_is_idempotent(memory: Memory) -> None:
    memory.init_schema()
    memory.init_schema()


def test_bad_entity_and_reason_are_typed_errors(memory: Memory, user_id: str) -> None:
    with pytest.raises(ValidationError):
        memory.remember("Maya is in Rome.", user_id=user_id, entities=[""])
    with pytest.raises(ValidationError):
        memory.remember("Maya is in Rome.", user_id=user_id, supersedes=["x"], reason="retraction")
    assert memory.store.counts(user_id)["facts"] == 0
