"""The question-vector cache and the batched ``last_used_at`` touches (no database)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from hmem.recall.question import QuestionVectors
from hmem.recall.touches import Touches

T0 = datetime(2026, 3, 1, tzinfo=UTC)


class Counting:
    """An embedder with a latency path: ``embed_query`` is what recall must call."""

    def __init__(self) -> None:
        self.query_calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("a search's texts go through embed_query")

    def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        self.query_calls.append(list(texts))
        return [[1.0, 0.0] if "Maya" in t else [0.0, 1.0] for t in texts]


def test_a_question_asked_again_is_not_embedded_again() -> None:
    embedder, vectors = Counting(), QuestionVectors(size=2)
    first, cached = vectors.vector(embedder, "Where does Maya live?", "Where does live?", 0.5)
    assert not cached
    assert embedder.query_calls == [["Where does Maya live?", "Where does live?"]]  # one call
    again, cached = vectors.vector(embedder, "Where does Maya live?", "Where does live?", 0.5)
    assert cached and again == first
    assert len(embedder.query_calls) == 1
    # another share is another vector
    _, cached = vectors.vector(embedder, "Where does Maya live?", "Where does live?", 1.0)
    assert not cached and embedder.query_calls[-1] == ["Where does Maya live?"]
    # least recently used goes first: the 0.5 one was used before the 1.0 one
    vectors.vector(embedder, "Who is Maya?", "Who is?", 0.5)
    _, cached = vectors.vector(embedder, "Where does Maya live?", "Where does live?", 1.0)
    assert cached
    _, cached = vectors.vector(embedder, "Where does Maya live?", "Where does live?", 0.5)
    assert not cached


def test_no_cache_when_its_size_is_zero() -> None:
    embedder, vectors = Counting(), QuestionVectors(size=0)
    for _ in range(2):
        vectors.vector(embedder, "Where do I live?", "Where do I live?", 0.5)
    assert embedder.query_calls == [["Where do I live?"], ["Where do I live?"]]


class Writes:
    def __init__(self, fail: bool = False) -> None:
        self.batches: list[tuple[str, list[tuple[str, datetime]]]] = []
        self.fail = fail
        self.done = threading.Event()

    def __call__(self, user_id: str, touches: Sequence[tuple[str, datetime]]) -> int:
        self.batches.append((user_id, list(touches)))
        self.done.set()
        if self.fail:
            raise RuntimeError("store down")
        return len(touches)


def test_touches_gather_into_one_write_per_user_with_each_facts_latest_use() -> None:
    writes = Writes()
    touches = Touches(writes, delay_s=3600)  # only flush writes here
    touches.add("u", ["a", "b"], T0)
    touches.add("u", ["b", "c"], T0 + timedelta(seconds=5))
    touches.add("u", ["a"], T0 - timedelta(seconds=5))  # an older use does not move it back
    touches.add("v", ["a"], T0)
    touches.add("v", [], T0)
    assert writes.batches == []  # nothing written on the search path
    touches.flush()
    assert sorted(writes.batches) == [
        ("u", [("a", T0), ("b", T0 + timedelta(seconds=5)), ("c", T0 + timedelta(seconds=5))]),
        ("v", [("a", T0)]),
    ]
    touches.flush()  # nothing pending: nothing written
    assert len(writes.batches) == 2
    touches.close()


def test_touches_are_written_in_the_background_without_a_flush() -> None:
    writes = Writes()
    touches = Touches(writes, delay_s=0.0)
    touches.add("u", ["a"], T0)
    assert writes.done.wait(timeout=30)
    assert writes.batches == [("u", [("a", T0)])]
    touches.close()


def test_a_failed_touch_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    writes = Writes(fail=True)
    touches = Touches(writes, delay_s=3600)
    touches.add("u", ["a"], T0)
    touches.close()  # writes what is pending
    assert writes.batches == [("u", [("a", T0)])]
    assert "could not update last_used_at" in caplog.text
