"""Pure models, the error tree, text normalisation; no database."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError as PydanticValidationError

from hmem import errors
from hmem._text import fact_hash, normalise
from hmem.errors import (
    HmemError,
    NaiveDatetimeError,
    RetryableError,
    TemporalOrderError,
    ValidationError,
)
from hmem.models import EntityRef, Fact, FactDraft, SupersedeTarget, check_vector, require_aware


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


def test_withdrawn_or_ended_fact_is_not_current() -> None:
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
    closed = now - timedelta(days=1)
    # withdrawn (a retraction, a correction): not current
    assert not Fact(**base, known_to=closed, close_reason="retraction").current_at(now)
    assert not Fact(**base, known_to=closed, close_reason="user_edit").current_at(now)
    # replaced from a later day (an announced change): still current until then
    later = Fact(**base, known_to=closed, close_reason="contradiction", valid_to=now + timedelta(1))
    assert later.current_at(now) and later.withdrawn_at is None
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


def test_a_turns_speaker_is_stored_folded() -> None:
    assert FactDraft(text="hi", speaker="  Caroline   Lee ").speaker == "caroline lee"
    assert FactDraft(text="hi", speaker="Straße").speaker == "strasse"  # casefold
    assert FactDraft(text="hi", speaker=" \t ").speaker is None  # blank: no speaker
    assert FactDraft(text="hi").speaker is None
    with pytest.raises(PydanticValidationError):
        FactDraft(text="hi", speaker="x" * 201)


@pytest.mark.parametrize(
    "vector",
    [
        [0.0] * 8,
        [-0.0] * 8,
        [float("nan")] + [0.1] * 7,
        [float("inf")] + [0.1] * 7,
        [1e300] * 8,  # the sum of squares overflows
        [1e-200] * 8,  # ... or underflows to zero
        [1e39] + [0.1] * 7,  # beyond float32 (stored packed as float32)
    ],
)
def test_check_vector_refuses_what_cosine_cannot_use(vector: list[float]) -> None:
    with pytest.raises(errors.InvalidVectorError):
        check_vector(vector)
    with pytest.raises(errors.InvalidVectorError):
        FactDraft(text="Maya likes tea.", embedding=vector)


def test_check_vector_dimension_and_good_vectors() -> None:
    assert check_vector([3, 4], 2) == [3.0, 4.0]
    with pytest.raises(errors.DimensionMismatchError):
        check_vector([0.1] * 3, 4)


@pytest.mark.parametrize(
    "when",
    [
        datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(timedelta(hours=-14))),
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),
    ],
)
def test_dates_without_a_utc_equivalent_are_refused(when: datetime) -> None:
    with pytest.raises(errors.DateRangeError):
        require_aware(when, "valid_from")
    with pytest.raises(errors.DateRangeError):
        FactDraft(text="Maya likes tea.", valid_from=when)
    assert require_aware(datetime(9999, 12, 31, tzinfo=UTC), "x") is not None
