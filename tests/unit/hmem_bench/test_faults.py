"""The pure parts of ``hmem bench faults``: what counts as hung, and the outage view."""

from __future__ import annotations

from hmem_bench.faults import _Call, _Log, _summary


def test_a_503_at_the_bound_is_an_answer_and_later_is_hung() -> None:
    log = _Log()
    log.calls = [
        _Call(1.0, "fact", 0.1, 201),
        _Call(5.0, "fact", 25.2, 503, "RequestTimeout: the request did not finish in time"),
        _Call(6.0, "read", 26.5, 200),  # answered after the bound: hung
        _Call(7.0, "fact", 30.0, 0, "ReadTimeout"),  # the client gave up: hung
        _Call(12.0, "read", 0.05, 503, "StoreUnavailableError: the database is unavailable"),
        _Call(13.0, "session", 0.2, 202),
        _Call(14.0, "read", 2.5, 503, "StoreUnavailableError: the database is unavailable"),
    ]
    out = _summary(log, 25.0, (10.0, 20.0))
    assert out["requests"] == 7 and out["hung_beyond_bound"] == 2
    assert out["503_timeout_at_bound"] == 1 and out["503_timeout_at_bound_by_10s"] == {"0": 1}
    assert out["by_status"] == {"200": 1, "201": 1, "202": 1, "503": 3, "no answer": 1}
    down = out["neo4j_outage"]
    assert down["requests_needing_neo4j"] == 2 and down["503"] == 2
    assert down["503_max_s"] == 2.5 and down["over_2s"] == 1
    assert down["sessions_accepted_while_down"] == 1
