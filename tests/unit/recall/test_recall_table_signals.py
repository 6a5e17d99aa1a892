"""The server's one row per candidate, read in one pass, gives what the per-source
rows give (``table_signals`` against ``base_scores``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hmem.graph.search import CandidateSet
from hmem.recall.scoring import base_scores, table_signals

_SCORE = st.one_of(st.none(), st.floats(min_value=0.0, max_value=30.0))


@st.composite
def tables(draw: st.DrawFn) -> list[list[Any]]:
    ids = draw(st.lists(st.sampled_from([f"f{i}" for i in range(40)]), unique=True))
    return [[fid, *draw(st.lists(_SCORE, min_size=7, max_size=7))] for fid in ids]


@given(tables())
def test_one_pass_over_the_table_is_base_scores_over_its_rows(table: list[list[Any]]) -> None:
    rows = CandidateSet(table=table).rows
    signals, sources, entity_rows = table_signals(table)
    expected = base_scores(rows)
    assert signals == expected
    assert [list(s) for s in signals.values()] == [list(s) for s in expected.values()]
    assert list(signals) == list(expected)  # the same facts in the same order
    by_fact: dict[str, list[str]] = {}
    for fid, source, _ in rows:
        by_fact.setdefault(fid, []).append(source)
    assert sources == by_fact
    assert entity_rows == [r for r in rows if r.source == "entity"]


def test_a_row_no_source_found_is_no_candidate() -> None:
    table: list[list[Any]] = [
        ["a", None, None, None, None, None, None, None],
        ["b", 0.9, *[None] * 6],
    ]
    signals, sources, _ = table_signals(table)
    assert list(signals) == ["b"] and sources == {"b": ["dense"]}
    assert signals["b"] == {"dense": 0.8, "lexical": 0.0, "entity": 0.0}
