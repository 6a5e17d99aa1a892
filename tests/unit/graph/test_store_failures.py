"""How store and session failures reach callers: the breaker's threshold, driver errors
into hmem's tree, and a synchronous caller's error for a session that failed elsewhere.
No database: the driver below never connects."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
from neo4j import Driver, GraphDatabase
from neo4j import exceptions as neo

from hmem.errors import (
    HmemError,
    ModelOutputError,
    ModelUnavailableError,
    RetryableError,
    StoreUnavailableError,
)
from hmem.graph._driver import Breaker, breaker, translate_errors
from hmem.ingest.ingestor import Ingestor
from hmem.ingest.pipeline import Pipeline
from hmem.ingest.queue import JobQueue


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_breaker_opens_after_threshold_failures_in_a_row() -> None:
    clock = Clock()
    guard = Breaker(threshold=3, cooldown_s=1.0, clock=clock)
    guard.failure()
    guard.failure()
    guard.check()  # two slow connections on a loaded machine: everyone else still tries
    guard.success()  # a call got through: the count starts again
    guard.failure()
    guard.failure()
    assert not guard.is_open
    guard.failure()
    assert guard.is_open
    with pytest.raises(StoreUnavailableError):
        guard.check()
    clock.now += 1.01  # the cooldown is over: the next call may try
    assert not guard.is_open
    guard.failure()  # and its failure opens the breaker again at once
    assert guard.is_open
    clock.now += 1.01
    guard.success()
    guard.failure()
    assert not guard.is_open  # reaching Neo4j reset the count


def test_an_open_breaker_with_a_probe_waits_for_it_and_nobody_else_does() -> None:
    """N9: once Neo4j was found down, calls fail at once until a probe in a thread of its
    own reaches it (a restarting server takes connections long before it answers:
    a call sent then used to wait out the pool's timeouts, 12-50 s)."""

    clock = Clock()
    answer, asked, probed = threading.Event(), threading.Event(), threading.Event()
    outcome: list[Exception | None] = [neo.ServiceUnavailable("still starting")]

    def probe() -> None:
        asked.set()
        answer.wait(5)
        answer.clear()
        probed.set()
        if outcome[0] is not None:
            raise outcome[0]

    guard = Breaker(threshold=1, cooldown_s=1.0, clock=clock, probe=probe)
    guard.failure()
    clock.now += 1.01  # the cooldown is over: the probe starts, the call does not wait
    with pytest.raises(StoreUnavailableError, match="tried again"):
        guard.check()
    assert asked.wait(5)
    with pytest.raises(StoreUnavailableError):  # while it runs: still at once
        guard.check()
    answer.set()
    assert probed.wait(5)
    time.sleep(0.05)
    assert guard.is_open  # the probe failed: another cooldown
    clock.now += 1.01
    outcome[0] = None
    asked.clear(), probed.clear()
    with pytest.raises(StoreUnavailableError):
        guard.check()
    assert asked.wait(5)
    answer.set()
    assert probed.wait(5)
    deadline = time.monotonic() + 5
    while guard.is_open and time.monotonic() < deadline:
        time.sleep(0.01)
    guard.check()  # the probe reached Neo4j: calls go through again


@pytest.fixture
def driver() -> Iterator[Driver]:
    made = GraphDatabase.driver("bolt://127.0.0.1:9", auth=("neo4j", "x"))  # never used
    yield made
    made.close()


def _raise(exc: Exception, driver: Driver) -> None:
    with translate_errors(driver):
        raise exc


def test_driver_errors_become_retryable_and_count_towards_the_breaker(driver: Driver) -> None:
    guard = breaker(driver)
    for _ in range(guard.threshold - 1):
        with pytest.raises(StoreUnavailableError, match="ServiceUnavailable"):
            _raise(neo.ServiceUnavailable("refused by 10.0.0.7:7687"), driver)
    assert not guard.is_open
    # every pooled connection busy: the server is slow, not gone (a 503, not a 500)
    with pytest.raises(StoreUnavailableError, match="busy") as busy:
        _raise(neo.ConnectionAcquisitionTimeoutError("no connection within 10s"), driver)
    assert "10.0.0.7" not in str(busy.value)
    with pytest.raises(StoreUnavailableError, match="SessionExpired"):
        _raise(neo.SessionExpired("gone"), driver)
    assert guard.is_open
    with pytest.raises(StoreUnavailableError, match="moments ago"):
        _raise(ValueError("not even tried"), driver)


def _submitted(tmp_path: Path) -> tuple[JobQueue, Any]:
    """A queue holding one pending session."""
    queue = JobQueue(tmp_path / "q.sqlite3")
    job, _ = queue.submit(
        user_id="u1",
        observed_at=datetime(2026, 1, 1, tzinfo=UTC),
        source_text="hello",
        episode_text="hello",
        refused=[],
        ignored=0,
    )
    return queue, job


def _failed_session(tmp_path: Path, error: str) -> HmemError:
    queue, job = _submitted(tmp_path)
    queue.fail(job.id, error)  # as the background worker records it
    ingest = Ingestor(queue, cast(Pipeline, None))  # never reached: the job already failed
    with pytest.raises(HmemError) as caught:
        ingest.wait_for(job.id)
    return caught.value


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("gave up after 5 attempts: ModelUnavailableError: status 500", ModelUnavailableError),
        ("ModelOutputError: the reply is not JSON", ModelOutputError),
        ("KeyError: 'facts'", HmemError),  # an unplanned failure stays an internal error
        ("PolicyRefusal: refused by the write policy: card", HmemError),
    ],
)
def test_a_sync_caller_gets_the_kind_its_session_failed_with(
    tmp_path: Path, error: str, kind: type[HmemError]
) -> None:
    got = _failed_session(tmp_path, error)
    assert type(got) is kind
    assert error in str(got)


def test_a_sync_wait_that_runs_out_is_retryable(tmp_path: Path) -> None:
    queue, job = _submitted(tmp_path)
    assert queue.claim() is not None  # another worker holds it
    ingest = Ingestor(queue, cast(Pipeline, None), sync_timeout_s=0.0, poll_s=0.01)
    with pytest.raises(RetryableError, match="still running"):
        ingest.wait_for(job.id)
