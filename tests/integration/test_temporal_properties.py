"""Property tests (hypothesis) of the temporal invariants, against the real store.

Random histories of writes, supersessions and retractions at random times; then:
windows never invert, a closed fact is never current, ``as_of`` never sees a fact
learned later, and both point-in-time queries equal a brute-force reading of the rows.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hmem import Fact, Memory, SupersedeReason, TemporalOrderError

BASE = datetime(2024, 1, 1, tzinfo=UTC)

op = st.tuples(
    st.sampled_from(["add", "supersede", "refine", "edit", "close"]),
    st.integers(min_value=0, max_value=900),  # observed day offset
    st.integers(min_value=-60, max_value=30),  # valid_from relative to observed
    st.integers(min_value=0, max_value=50),  # which open fact
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ops=st.lists(op, min_size=1, max_size=12),
    probes=st.lists(st.integers(0, 960), min_size=3, max_size=3),
)
def test_temporal_invariants(
    memory: Memory, ops: list[tuple[str, int, int, int]], probes: list[int]
) -> None:
    uid = f"prop-{uuid.uuid4().hex[:12]}"
    try:
        for n, (kind, day, shift, pick) in enumerate(ops):
            observed = BASE + timedelta(days=day)
            valid_from = observed + timedelta(days=shift)
            open_ids = [f.id for f in memory.facts(user_id=uid, include_closed=True) if f.is_open]
            target = open_ids[pick % len(open_ids)] if open_ids else None
            try:
                if kind == "close" and target:
                    memory.close(target, user_id=uid, observed_at=observed, at=valid_from)
                elif kind in ("supersede", "refine", "edit") and target:
                    reason = {
                        "supersede": SupersedeReason.CONTRADICTION,
                        "refine": SupersedeReason.REFINEMENT,
                        "edit": SupersedeReason.USER_EDIT,
                    }[kind]
                    memory.remember(
                        f"fact {n} replaces",
                        user_id=uid,
                        observed_at=observed,
                        valid_from=valid_from,
                        supersedes=[target],
                        reason=reason,
                    )
                else:
                    memory.remember(
                        f"fact {n}", user_id=uid, observed_at=observed, valid_from=valid_from
                    )
            except TemporalOrderError:
                pass  # a retraction dated before the fact began or was learned: refused

        rows = memory.facts(user_id=uid, include_closed=True)
        for f in rows:
            assert f.valid_to is None or f.valid_from <= f.valid_to
            assert f.known_to is None or f.known_from <= f.known_to
        now = BASE + timedelta(days=2000)
        current = {f.id for f in memory.store.list_facts(uid, now=now)}
        assert not any(f.id in current for f in rows if f.known_to is not None)

        # docs/time.md: `as_of` alone is belief and world time t, `as_of_event` alone is
        # world time t as believed now; a close that is not a retraction or a correction
        # keeps the fact believed with its end. The belief history itself is compared with
        # the reference model in test_bitemporal_oracle.py; here, what the final rows decide.
        withdrawn = {SupersedeReason.RETRACTION, SupersedeReason.USER_EDIT}
        for day in probes:
            t = BASE + timedelta(days=day)

            def window(f: Fact, t: datetime = t) -> bool:
                return f.valid_from <= t and (f.valid_to is None or f.valid_to > t)

            believed = {f.id for f in memory.facts(user_id=uid, as_of=t)}
            assert all(f.known_from <= t and f.valid_from <= t for f in rows if f.id in believed)
            settled = {  # open since before t, never changed: believed and true at t
                f.id for f in rows if f.close_reason is None and f.known_from <= t and window(f)
            }
            assert settled <= believed
            true_then = {f.id for f in memory.facts(user_id=uid, as_of_event=t)}
            assert true_then == {
                f.id for f in rows if window(f) and f.close_reason not in withdrawn
            }
    finally:
        memory.erase_user(uid)
