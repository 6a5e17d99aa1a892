"""Pure models, the error tree, text normalisation; no database."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmem import errors
from hmem._text import fact_hash, normalise
from hmem.errors import (
    HmemError,
    NaiveDatetimeError,
    RetryableError,
    TemporalOrderError,
    ValidationError,
)
from hmem.models import EntityRef, Fact, FactDraft, SupersedeTarget


def test_every_error_is_in_the_tree() -> None:
    classes = [
        c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
    ]
    assert classes
    assert all(issubclass(c, HmemError) for c in classes)
    assert issubclass(errors.StoreUnavailableError, RetryableError)
    assert issubclass(errors.ModelUnavailableError, RetryableError)
    assert not issubclass(errors.ModelAuthError, RetryableError)
    for c in classes:
        assert c.__name__ in (errors.__doc__ or ""), f"{c.__name__} missing from the tree drawing"


def test_naive_datetime_is_refused() -> None:
    with pytest.raises(NaiveDatetimeError):
        FactDraft(text="x", valid_from=datetime(2026, 1, 1))


def test_retraction_is_not_a_supersession() -> None:
    with pytest.raises(ValidationError, match="close"):
        SupersedeTarget(target_id="a", reason="retraction")


@given(
    start=st.datetimes(timezones=st.just(UTC)),
    delta=st.timedeltas(min_value=timedelta(days=-3650), max_value=timedelta(days=3650)),
)
def test_windows_never_invert(start: datetime, delta: timedelta) -> None:
    try:
        end = start + delta
    except OverflowError:
        return
    if delta < timedelta(0):
        with pytest.raises(TemporalOrderError):
            FactDraft(text="x", valid_from=start, valid_to=end)
    else:
        draft = FactDraft(text="x", valid_from=start, valid_to=end)
        assert draft.valid_from is not None
        assert draft.valid_to is not None
        assert draft.valid_from <= draft.valid_to


def test_closed_fact_is_never_current() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    base = dict(
        id="f",
        user_id="u",
        text="t",
        category="semantic",
        importance=5,
        hash="h",
        valid_from=now - timedelta(days=9),
        known_from=now - timedelta(days=9),
        ingested_at=now,
    )
    assert Fact(**base).current_at(now)
    assert not Fact(**base, known_to=now - timedelta(days=1)).current_at(now)
    assert not Fact(**base, valid_to=now).current_at(now)


@given(st.text(min_size=1, max_size=60))
def test_hash_ignores_case_space_and_edge_punctuation(text: str) -> None:
    assert fact_hash(text) == fact_hash(f"  {text.upper()}  ") or normalise(text) != normalise(
        text.upper()
    )
    assert fact_hash(text) == fact_hash(text + ".") or normalise(text) != normalise(text + ".")


def test_normalise_examples() -> None:
    assert normalise("  Maya   is VEGETARIAN. ") == "maya is vegetarian"
    assert fact_hash("Maya is vegetarian.") == fact_hash("maya is vegetarian")
    assert fact_hash("Maya is vegetarian.") != fact_hash("Maya is vegan.")


def test_entity_canonical_name() -> None:
    assert EntityRef(name="  New   York ").canonical == "new york"
