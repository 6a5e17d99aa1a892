"""The graph step of recall: a hit's session (episode) and the turns next to it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from hmem import Memory
from hmem.graph.search import Question
from hmem.models import FactDraft
from hmem.recall.query import analyse

NOW = datetime(2026, 6, 1, tzinfo=UTC)
DAY = datetime(2026, 5, 2, tzinfo=UTC)

TRIP = [
    "Maya: We finally booked the big holiday!",
    "Sam: Oh nice, who is coming along?",
    "Maya: My sister Ana and her two kids, we fly to Lisbon on the ninth.",
    "Sam: Sounds lovely, bring me some pastries.",
]


def _write(memory: Memory, user: str) -> dict[str, str]:
    trip = memory.remember_many(
        [FactDraft(text=t, turn=i) for i, t in enumerate(TRIP)],
        user_id=user,
        observed_at=DAY,
        session_id="trip",
    )
    other = memory.remember_many(
        [FactDraft(text="Maya: The kids want pancakes for breakfast.", turn=0)],
        user_id=user,
        observed_at=DAY,
        session_id="breakfast",
    )
    return {**{f"t{i}": fid for i, fid in enumerate(trip.added)}, "other": other.added[0]}


Rows = dict[str, dict[str, float]]


def _rows(memory: Memory, user: str, question: str, **weights: float) -> Rows:
    analysis = analyse(question, NOW)
    got = memory.recall.search_backend.retrieve(
        Question(
            user,
            vector=None,
            lucene=analysis.lucene,
            entity_grams=[],
            mode="current",
            now=NOW,
            weights=(
                0.0,
                1.0,
                0.0,
                weights.get("session", 0.4),
                weights.get("adjacent", 0.3),
                0.0,
                0.0,
            ),
            keep=20,
            seeds=weights.get("seeds", 10),  # type: ignore[arg-type]
        )
    )
    out: dict[str, dict[str, float]] = {}
    for c in got.candidates.rows:
        out.setdefault(c.id, {})[c.source] = c.score
    return out


def test_a_hit_brings_its_session_and_the_turns_next_to_it(memory: Memory, user_id: str) -> None:
    ids = _write(memory, user_id)
    rows = _rows(memory, user_id, "Who will fly with Maya?")
    hit = rows[ids["t2"]]
    assert set(hit) == {"lexical", "session"} and hit["session"] == 1.0  # the best seed
    for neighbour in ("t1", "t3"):  # one turn away: the seed's first-pass score
        assert rows[ids[neighbour]] == {"session": 1.0, "adjacent": 1.0}
    assert rows[ids["t0"]] == {"session": 1.0}  # same session, two turns away
    assert ids["other"] not in rows  # another session: nothing
    result = memory.search("Who will fly with Maya?", user_id=user_id, now=NOW)
    parts = {h.fact.id: h.parts for h in result.hits}
    assert result.hits[0].fact.id == ids["t2"]
    assert parts[ids["t1"]]["adjacent"] > 0 and parts[ids["t0"]]["session"] > 0


def test_the_graph_step_is_off_with_zero_weights(memory: Memory, user_id: str) -> None:
    ids = _write(memory, user_id)
    rows = _rows(memory, user_id, "Who will fly with Maya?", session=0.0, adjacent=0.0)
    assert set(rows) == {ids["t2"]}


def test_the_graph_step_keeps_the_temporal_view_and_the_user(memory: Memory, user_id: str) -> None:
    ids = _write(memory, user_id)
    memory.close(ids["t1"], user_id=user_id, at=DAY)  # closed: not in the current view
    stranger = f"stranger-{uuid.uuid4().hex[:8]}"
    try:
        theirs = _write(memory, stranger)  # same session name, same texts
        rows = _rows(memory, user_id, "Who will fly with Maya?")
        assert ids["t1"] not in rows and ids["t3"] in rows
        assert not set(theirs.values()) & set(rows)
    finally:
        memory.erase_user(stranger)
