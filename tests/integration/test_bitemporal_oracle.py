"""Random histories against hmem on a real Neo4j, every view compared with the
reference model (tests/bitemporal_model.py, docs/time.md).

A hypothesis ``RuleBasedStateMachine`` writes facts (with and without dates), supersedes
them (contradiction, refinement, correction; the successor's start in the past, present
or future of the moment it is said), closes them by hand (ended at a time, retracted,
never true), restores and erases them, and imports closed ones; after each step it reads
``facts`` at a random belief time and world time (each None or one of the history's
times, or a second either side) and ``get(as_of=)`` of a random fact, and compares ids,
windows and closes with the model. Errors must match too (which operation hmem refuses).

The same machine runs at the store level (``Memory``) and through the HTTP API
(``hmem.Client`` against a live ``hmem serve``, one server and tenant for the run, a
fresh user per history). A history's user is deleted with the run's others at its end.
The normal suite runs a few seeded histories of each; the slow tier (``-m slow``) runs
``HMEM_ORACLE_HISTORIES`` (2,000 for the issue's figure) of each and prints the run time.

Where a history's time goes (profiled: docs/time.md, "The reference model"): almost all
of it waits on Neo4j (the writes' transactions, an erasure's wait for the fulltext
index); hypothesis and the model take a tenth. So the slow tier runs its histories in
``HMEM_ORACLE_SHARDS`` threads (default 3), shard *k* seeded with hypothesis seed *k*
(``seed(k)``: the same histories every run), each history still one user's sequence of
steps with every view compared as before.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    get_state_machine_test,
    precondition,
    rule,
    run_state_machine_as_test,
)
from neo4j import Driver

from hmem import Client, Memory, SupersedeReason
from hmem.errors import HmemError, NotFoundError
from hmem.graph.imported import ImportedFact
from tests.bitemporal_model import BitemporalModel, ModelError
from tests.integration.test_api_fixtures import LiveServer, Tenant

BASE = datetime(2023, 1, 1, tzinfo=UTC)
REASONS = ("contradiction", "refinement", "user_edit")
IMPORTED = ("contradiction", "ended", "retraction", "user_edit")
FAST = 12  # histories per face in the normal suite
SLOW = int(os.environ.get("HMEM_ORACLE_HISTORIES", "0"))
SHARDS = max(1, int(os.environ.get("HMEM_ORACLE_SHARDS", "3")))
slow_tier = pytest.mark.skipif(
    SLOW < 1,
    reason="the slow tier runs thousands of histories (minutes): set "
    "HMEM_ORACLE_HISTORIES=2000 to run it",
)

days = st.integers(min_value=-400, max_value=400)


def _seen(fact: Any) -> tuple[datetime | None, datetime | None, str | None]:
    reason = None if fact.close_reason is None else str(fact.close_reason)
    return fact.valid_to, fact.known_to, reason


class Tally:
    """Histories run and views compared, across a run's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.histories = 0
        self.views = 0

    def add(self, views: int) -> None:
        with self._lock:
            self.histories += 1
            self.views += views


def machine(
    face: Callable[[], Any],
    new_user: Callable[[], str],
    importer: Callable[..., None] | None,
    tally: Tally | None = None,
) -> type[RuleBasedStateMachine]:
    """A state machine class over ``face()`` (a Memory or a Client)."""

    class Histories(RuleBasedStateMachine):
        ids = Bundle("ids")

        def __init__(self) -> None:
            super().__init__()
            self.hmem = face()
            self.user = new_user()
            self.model = BitemporalModel()
            self.clock = BASE  # belief time: only moves forward
            self.times: set[datetime] = {BASE}
            self.serial = 0
            self.views = 0  # facts() and get() compared

        def _tick(self, step: int) -> datetime:
            self.clock += timedelta(days=step)
            self.times.add(self.clock)
            return self.clock

        def _day(self, offset: int) -> datetime:
            at = self.clock + timedelta(days=offset)
            self.times.add(at)
            return at

        def _both(
            self, name: str, hmem_call: Callable[[], Any], model_call: Callable[[], None]
        ) -> bool:
            """Run one operation on both; the same refusal, or both succeed."""
            expected = None
            try:
                model_call()
            except ModelError as exc:
                expected = exc.kind
            detail = ""
            try:
                hmem_call()
                got = None
            except HmemError as exc:
                got, detail = type(exc).__name__, f" ({exc})"
            assert got == expected, f"{name}: hmem {got}{detail}, model {expected}"
            return got is None

        def _fid(self) -> str:
            self.serial += 1
            return f"f{self.serial}-{uuid.uuid4().hex[:6]}"

        @rule(target=ids, step=st.integers(0, 60), start=st.none() | days,
              length=st.none() | st.integers(0, 500))  # fmt: skip
        def remember(self, step: int, start: int | None, length: int | None) -> str:
            observed = self._tick(step)
            fid = self._fid()
            valid_from = None if start is None else self._day(start)
            valid_to = None
            if length is not None:
                valid_to = (valid_from or observed) + timedelta(days=length)
                self.times.add(valid_to)
            self._both(
                "remember",
                lambda: self.hmem.remember(
                    f"Oracle fact {fid}.", user_id=self.user, fact_id=fid, observed_at=observed,
                    valid_from=valid_from, valid_to=valid_to, entities=["Oracle"], infer=False,
                ),
                lambda: self.model.remember(
                    fid, observed, valid_from=valid_from, valid_to=valid_to
                ),
            )  # fmt: skip
            return fid

        @rule(target=ids, old=ids, step=st.integers(0, 60), start=st.none() | days,
              reason=st.sampled_from(REASONS))  # fmt: skip
        def supersede(self, old: str, step: int, start: int | None, reason: str) -> str:
            observed = self._tick(step)
            fid = self._fid()
            valid_from = None if start is None else self._day(start)
            self._both(
                "supersede",
                lambda: self.hmem.remember(
                    f"Oracle fact {fid} replaces {old}.", user_id=self.user, fact_id=fid,
                    observed_at=observed, valid_from=valid_from, supersedes=[old],
                    reason=reason, entities=["Oracle"], infer=False,
                ),
                lambda: self.model.remember(
                    fid, observed, valid_from=valid_from, supersedes=(old, reason)
                ),
            )  # fmt: skip
            return fid

        @rule(fid=ids, step=st.integers(0, 60), at=st.none() | days,
              reason=st.sampled_from(("retraction", "user_edit")))  # fmt: skip
        def close(self, fid: str, step: int, at: int | None, reason: str) -> None:
            observed = self._tick(step)
            ended = None if at is None else self._day(at)
            self._both(
                "close",
                lambda: self.hmem.close(
                    fid, user_id=self.user, at=ended, observed_at=observed, reason=reason
                ),
                lambda: self.model.close(fid, observed, at=ended, reason=reason),
            )

        @rule(fid=ids, step=st.integers(0, 60))
        def restore(self, fid: str, step: int) -> None:
            observed = self._tick(step)
            self._both(
                "restore",
                lambda: self.hmem.restore(fid, user_id=self.user, observed_at=observed),
                lambda: self.model.restore(fid, observed),
            )

        @rule(fid=consumes(ids))
        def erase(self, fid: str) -> None:
            self._both(
                "erase",
                lambda: self.hmem.erase(fid, user_id=self.user),
                lambda: self.model.erase(fid),
            )

        @precondition(lambda self: importer is not None)
        @rule(target=ids, start=days, length=st.integers(0, 300), closed=st.integers(0, 200),
              reason=st.sampled_from(IMPORTED))  # fmt: skip
        def import_closed(self, start: int, length: int, closed: int, reason: str) -> str:
            """A fact imported closed (an export of another store): no history before."""
            fid = self._fid()
            valid_from = self._day(start)
            valid_to = valid_from + timedelta(days=length)
            known_from = self.clock
            known_to = known_from + timedelta(days=closed)
            self.clock = known_to
            self.times.update((valid_to, known_from, known_to))
            assert importer is not None
            importer(self.hmem, self.user, ImportedFact(
                id=fid, text=f"Oracle imported {fid}.", valid_from=valid_from,
                valid_to=valid_to, known_from=known_from, known_to=known_to,
                close_reason=SupersedeReason(reason),
            ))  # fmt: skip
            self.model.import_fact(
                fid, valid_from=valid_from, known_from=known_from, valid_to=valid_to,
                known_to=known_to, close_reason=reason,
            )  # fmt: skip
            return fid

        @rule(data=st.data())
        def views_agree(self, data: st.DataObject) -> None:
            moments = sorted(self.times)
            moment = st.sampled_from(moments).flatmap(
                lambda t: st.sampled_from((t, t - timedelta(seconds=1), t + timedelta(seconds=1)))
            )
            as_of = data.draw(st.none() | moment, label="as_of")
            as_of_event = data.draw(st.none() | moment, label="as_of_event")
            now = datetime.now(UTC)
            options: dict[str, Any] = {"limit": 1000}
            if as_of is not None:
                options["as_of"] = as_of
            if as_of_event is not None:
                options["as_of_event"] = as_of_event
            got = {f.id: _seen(f) for f in self.hmem.facts(user_id=self.user, **options)}
            want = self.model.view(now, as_of, as_of_event)
            assert got == want, f"facts(as_of={as_of}, as_of_event={as_of_event})"
            self.views += 1
            if self.model.facts:
                fid = data.draw(st.sampled_from(sorted(self.model.facts)), label="get")
                expected = self.model.get(fid, as_of)
                found: tuple[Any, ...] | None
                try:
                    found = _seen(self.hmem.get(fid, user_id=self.user, as_of=as_of))
                except NotFoundError:
                    found = None
                assert found == expected, f"get({fid}, as_of={as_of})"
                self.views += 1

        def teardown(self) -> None:
            # the run's users are deleted at its end (_cleanup): erase_user's receipts
            # and audit take seconds per user, which 2,000 histories cannot afford
            if isinstance(self.hmem, Client):
                self.hmem.shutdown()
            if tally is not None:
                tally.add(self.views)

    return Histories


def _settings(examples: int, *, derandomize: bool) -> settings:
    return settings(
        max_examples=examples,
        stateful_step_count=14,
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def _run(driver: Driver, run: str, histories: type[RuleBasedStateMachine], examples: int) -> float:
    """The normal suite's few histories, seeded (``derandomize``: the same every run)."""
    started = time.perf_counter()
    try:
        run_state_machine_as_test(histories, settings=_settings(examples, derandomize=True))
    finally:
        _cleanup(driver, run)
    return time.perf_counter() - started


_SOURCE_LOCK = threading.Lock()


def _run_shards(
    driver: Driver, run: str, make: Callable[[Tally], type[RuleBasedStateMachine]], total: int
) -> tuple[float, Tally]:
    """``total`` histories in ``SHARDS`` threads, shard *k* with hypothesis seed *k*;
    the wall time and what was compared. The first mismatch fails the run (shrunk)."""
    tally = Tally()
    sizes = [total // SHARDS + (1 if k < total % SHARDS else 0) for k in range(SHARDS)]

    def shard(k: int) -> None:
        histories = seed(k)(make(tally))
        with _SOURCE_LOCK:  # it reads the class's source: ast.parse is not thread-safe
            test = get_state_machine_test(
                histories, settings=_settings(sizes[k], derandomize=False)
            )
        test()

    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(SHARDS) as pool:
            for done in [pool.submit(shard, k) for k in range(SHARDS) if sizes[k]]:
                done.result()
    finally:
        _cleanup(driver, run)
    return time.perf_counter() - started, tally


def _cleanup(driver: Driver, run: str) -> None:
    """Delete every node of this run's users (their ids carry ``run``), in batches."""
    while True:
        records, _, _ = driver.execute_query(
            "MATCH (n) WHERE n.user_id CONTAINS $run WITH n LIMIT 5000 "
            "DETACH DELETE n RETURN count(*) AS gone",
            run=run,
        )
        if records[0]["gone"] == 0:
            return


def _import(memory: Memory) -> Callable[..., None]:
    def importer(_face: Any, user: str, fact: ImportedFact) -> None:
        memory.store.import_facts(user, [fact])

    return importer


def _users(run: str) -> Callable[[], str]:
    return lambda: f"oracle-{run}-{uuid.uuid4().hex[:8]}"


def _store_machine(
    memory: Memory, run: str, tally: Tally | None = None
) -> type[RuleBasedStateMachine]:
    return machine(lambda: memory, _users(run), _import(memory), tally)


def _http_machine(
    server: LiveServer, tenant: Tenant, run: str, tally: Tally | None = None
) -> type[RuleBasedStateMachine]:
    def face() -> Client:
        return Client(server.url, api_key=tenant.key)

    return machine(face, _users(run), None, tally)


def _report(face: str, seconds: float, tally: Tally) -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"\n{tally.histories} {face} histories ({SHARDS} shards, seeds 0-{SHARDS - 1}), "
        f"{tally.views} views compared: 0 mismatches, {seconds:.1f} s "
        f"({seconds / max(tally.histories, 1):.2f} s per history), load average {load}"
    )


def test_random_histories_agree_with_the_model_in_the_store(driver: Driver, memory: Memory) -> None:
    run = uuid.uuid4().hex[:10]
    _run(driver, run, _store_machine(memory, run), FAST)


def test_random_histories_agree_with_the_model_over_http(
    driver: Driver, server: LiveServer, tenant: Tenant
) -> None:
    run = uuid.uuid4().hex[:10]
    _run(driver, run, _http_machine(server, tenant, run), FAST)


@pytest.mark.slow
@slow_tier
def test_many_random_histories_in_the_store(driver: Driver, memory: Memory) -> None:
    run = uuid.uuid4().hex[:10]
    seconds, tally = _run_shards(driver, run, lambda t: _store_machine(memory, run, t), SLOW)
    assert tally.histories >= SLOW
    _report("store", seconds, tally)


@pytest.mark.slow
@slow_tier
def test_many_random_histories_over_http(
    driver: Driver, server: LiveServer, tenant: Tenant
) -> None:
    run = uuid.uuid4().hex[:10]
    seconds, tally = _run_shards(driver, run, lambda t: _http_machine(server, tenant, run, t), SLOW)
    assert tally.histories >= SLOW
    _report("HTTP", seconds, tally)
