"""Pure pieces of the write path: the relation table, dates, the schema, the queue."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError as PydanticError

from hmem.errors import NotFoundError
from hmem.extract.dates import resolve_date
from hmem.extract.extractor import Extraction, Neighbour, Relation, build_prompt
from hmem.extract.relations import POLICY, Operation, decide, policy_table
from hmem.ingest.queue import JobQueue
from hmem.models import SupersedeReason

OBSERVED = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # a Monday


def test_relation_table_is_exhaustive_and_never_deletes() -> None:
    assert set(POLICY) == set(Relation)
    assert "delete" not in {op.value for op in Operation}
    assert decide(Relation.CONTRADICTS) == (Operation.SUPERSEDE, SupersedeReason.CONTRADICTION)
    assert decide(Relation.REFINES) == (Operation.SUPERSEDE, SupersedeReason.REFINEMENT)
    assert decide(Relation.DUPLICATES) == (Operation.MERGE, None)
    assert decide(Relation.RELATES) == (Operation.RELATE, None)
    table = policy_table()
    assert "contradicts       supersede         contradiction" in table


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-02", datetime(2026, 2, 1, tzinfo=UTC)),
        ("2026-02-14", datetime(2026, 2, 14, tzinfo=UTC)),
        ("yesterday", datetime(2026, 3, 1, 10, tzinfo=UTC)),
        ("last month", datetime(2026, 2, 1, 10, tzinfo=UTC)),
        ("3 weeks ago", datetime(2026, 2, 9, 10, tzinfo=UTC)),
        ("in 2 days", datetime(2026, 3, 4, 10, tzinfo=UTC)),
        ("next Tuesday", datetime(2026, 3, 3, tzinfo=UTC)),
        ("last year", datetime(2025, 3, 1, 10, tzinfo=UTC)),
        # relative in another language: not read by the English-only first pass
        ("vor 3 Tagen", datetime(2026, 2, 27, 10, tzinfo=UTC)),
        ("hace 2 semanas", datetime(2026, 2, 16, 10, tzinfo=UTC)),
        # without a year: the nearest such day, last year's included
        ("December 20", datetime(2025, 12, 20, tzinfo=UTC)),
        ("20 Dec", datetime(2025, 12, 20, tzinfo=UTC)),
        ("March 10", datetime(2026, 3, 10, tzinfo=UTC)),
        ("June", datetime(2026, 6, 1, tzinfo=UTC)),
        (None, None),
        ("", None),
        ("whenever", None),
        ("2026-13-40", None),
    ],
)
def test_relative_dates_resolve_against_observed_at(
    text: str | None, expected: datetime | None
) -> None:
    assert resolve_date(text, OBSERVED) == expected


def test_a_date_without_a_year_is_the_nearest_across_new_year() -> None:
    """Said on 28 December, "January 3" is six days later, not a year before; a
    relative date keeps its own reading."""
    said = datetime(2025, 12, 28, 18, tzinfo=UTC)
    assert resolve_date("January 3", said) == datetime(2026, 1, 3, tzinfo=UTC)
    assert resolve_date("December 1", said) == datetime(2025, 12, 1, tzinfo=UTC)
    assert resolve_date("3 days ago", said) == datetime(2025, 12, 25, 18, tzinfo=UTC)
    assert resolve_date("in 2 weeks", said) == datetime(2026, 1, 11, 18, tzinfo=UTC)


@given(
    st.sampled_from(
        ["December 20", "Feb 29", "January 1", "3 days ago", "in 2 weeks", "last year",
         "next Tuesday", "June", "9999-12-31", "0001", "yesterday", "in 300 years"]
    ),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
)  # fmt: skip
@settings(max_examples=200, deadline=None)
def test_resolve_date_never_fails_near_the_calendars_ends(text: str, said: datetime) -> None:
    """A date a model wrote, read against any moment hmem can store: a datetime or
    None, never an exception (the write would fail with it)."""
    found = resolve_date(text, said.replace(tzinfo=UTC))
    assert found is None or found.tzinfo is UTC


def test_extraction_schema_refuses_long_facts_and_unknown_relations() -> None:
    with pytest.raises(PydanticError, match="at most 80 words"):
        Extraction.model_validate({"facts": [{"text": "word " * 81}]})
    with pytest.raises(PydanticError):
        Extraction.model_validate(
            {
                "facts": [
                    {
                        "text": "Maya lives in Paris.",
                        "relations": [{"target_id": "a", "relation": "deletes"}],
                    }
                ]
            }
        )
    ok = Extraction.model_validate({"facts": [{"text": "Maya lives in Paris."}]})
    assert ok.facts[0].category == "semantic"


def test_prompt_shows_today_neighbours_with_ids_and_the_users_words() -> None:
    prompt = build_prompt(
        "I moved to Paris last month.",
        [Neighbour("abc123", "Maya lives in London.", datetime(2019, 9, 1, tzinfo=UTC), 0.84)],
        OBSERVED,
    )
    assert "TODAY: 2026-03-02 (Monday)" in prompt
    assert "- [abc123] Maya lives in London. (since 2019-09-01)" in prompt
    assert prompt.endswith("I moved to Paris last month.")


def _submit(queue: JobQueue, user: str, day: int, text: str = "hi") -> str:
    job, _ = queue.submit(
        user_id=user,
        observed_at=datetime(2026, 1, day, tzinfo=UTC),
        source_text=text,
        episode_text=f"user: {text}",
        refused=[],
        ignored=0,
    )
    return job.id


def test_queue_orders_per_user_and_reclaims_dead_leases(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "q.sqlite3", lease_s=0.2)
    late = _submit(queue, "u1", 5, "late")
    early = _submit(queue, "u1", 2, "early")
    other = _submit(queue, "u2", 9)
    first = queue.claim()
    assert first is not None and first.id == early  # observed_at order, not arrival
    second = queue.claim()
    assert second is not None and second.id == other  # u1 is busy: u2 goes
    assert queue.claim() is None  # u1's later job waits for the earlier one
    time.sleep(0.25)  # the worker holding `early` died: its lease ran out
    again = queue.claim()
    assert again is not None and again.id == early and again.attempts == 2
    queue.complete(early, {"added": []})
    assert (nxt := queue.claim()) is not None and nxt.id == late


def test_a_renewed_lease_holds_and_only_its_own_run_renews_it(tmp_path: Path) -> None:
    """N14: the heartbeat's renewal keeps a live job; a run that lost it cannot."""
    queue = JobQueue(tmp_path / "q.sqlite3", lease_s=0.2)
    job_id = _submit(queue, "u1", 1)
    run = queue.claim()
    assert run is not None and run.attempts == 1
    for _ in range(3):
        time.sleep(0.1)
        assert queue.renew(job_id, run.attempts)
        assert queue.claim() is None  # alive: not taken over
    time.sleep(0.25)  # no renewal: the lease runs out
    again = queue.claim()
    assert again is not None and again.attempts == 2
    assert not queue.renew(job_id, run.attempts)  # the first run's heartbeat is refused
    assert queue.renew(job_id, again.attempts)
    queue.complete(job_id, {"added": []})
    assert not queue.renew(job_id, again.attempts)  # settled


def test_queue_is_idempotent_and_erasable(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "q.sqlite3")
    a = _submit(queue, "u1", 1)
    b = _submit(queue, "u1", 1)
    assert a == b and queue.counts() == {"queued": 1}
    with pytest.raises(NotFoundError):
        queue.get(a, user_id="u2")
    assert queue.purge_user("u1") == 1 and queue.counts() == {}


def test_transient_failures_back_off_then_fail(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "q.sqlite3", max_attempts=2)
    job_id = _submit(queue, "u1", 1)
    assert queue.claim() is not None
    assert queue.release(job_id, "ModelUnavailableError: 503", backoff_s=60) == "queued"
    assert queue.claim() is None  # backing off
    queue._update(job_id, not_before=0)
    assert queue.claim() is not None
    assert queue.release(job_id, "ModelUnavailableError: 503", backoff_s=0) == "failed"
    failed = queue.get(job_id)
    assert failed.status == "failed" and "gave up after 2" in (failed.error or "")
    assert queue.retry(job_id).status == "queued"


def test_content_guard_keeps_facts_that_add_a_word() -> None:
    from hmem._text import adds_content

    assert not adds_content("Maya is a vegetarian.", "Maya is vegetarian.")
    assert not adds_content(
        "Sam, Maya's brother, lives in Leeds.", "Maya's brother Sam lives in Leeds."
    )
    assert adds_content("Maya used to work at Acme Corp.", "Maya works at Acme Corp.")
    assert adds_content("Maya's flight is on May 13.", "Maya's flight is on May 3.")


def test_dedup_calibration_on_minilm() -> None:
    model = Path(__file__).parents[4] / "shared" / "models" / "all-MiniLM-L6-v2-onnx"
    if not model.is_dir():
        pytest.skip(f"the shared MiniLM model is not at {model}")
    from hmem_bench.dedup_calibration import calibrate

    found = calibrate(model)
    assert found["skipped_at_0.95_with_content_guard"] == {"same": 5, "different": 0}
    assert found["skipped_at_0.95_cosine_only"]["different"] == 1  # why the guard exists
