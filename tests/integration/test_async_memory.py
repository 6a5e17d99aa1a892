"""``AsyncMemory``: the embedded memory awaited, on the real Neo4j: the same answers as
``Memory`` (it runs Memory's own methods in worker threads), and several calls in flight
at once on one event loop."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from hmem import AsyncMemory, Memory, NotFoundError
from hmem.models import SupersedeReason


def test_async_memory_writes_reads_and_closes_as_memory_does(memory: Memory, user_id: str) -> None:
    async def run() -> None:
        amem = AsyncMemory(memory)
        first = await amem.remember(
            "Maya lives in Lisbon since 2019.",
            user_id=user_id,
            infer=False,
            observed_at=datetime(2026, 1, 5, tzinfo=UTC),
        )
        second = await amem.remember(
            "Maya moved to Porto in March 2026.",
            user_id=user_id,
            supersedes=first.added,
            observed_at=datetime(2026, 3, 2, tzinfo=UTC),
        )
        assert second.superseded == first.added
        found = await amem.search("Where does Maya live?", user_id=user_id, k=5)
        assert found.hits[0].fact.id == second.added[0]
        assert found.hits[0].fact.text == memory.get(second.added[0], user_id=user_id).text
        chain = await amem.history(second.added[0], user_id=user_id)
        assert [s.fact.id for s in chain.predecessors] == first.added
        closed = await amem.close(
            second.added[0], user_id=user_id, reason=SupersedeReason.RETRACTION
        )
        assert not closed.is_open
        assert await amem.facts(user_id=user_id) == []
        with pytest.raises(NotFoundError):
            await amem.get("no-such-fact", user_id=user_id)

    asyncio.run(run())


def test_calls_run_side_by_side_on_one_loop(memory: Memory, user_id: str) -> None:
    """Eight writes gathered at once all land: the loop hands each to a thread."""

    async def run() -> list[str]:
        amem = AsyncMemory(memory)
        results = await asyncio.gather(
            *(
                amem.remember(f"Maya's fact number {i} is worth keeping.", user_id=user_id)
                for i in range(8)
            )
        )
        return [r.added[0] for r in results]

    added = asyncio.run(run())
    assert len(set(added)) == 8
    stored = {f.id for f in memory.facts(user_id=user_id)}
    assert stored == set(added)


def test_the_adapters_port_awaits_an_async_memory(memory: Memory, user_id: str) -> None:
    """Every framework adapter takes an ``AsyncMemory`` as it takes an ``AsyncClient``:
    its calls are awaited on the framework's loop, never run in a thread again."""
    from hmem.faces.adapters._core import Port

    port = Port(AsyncMemory(memory))
    assert port.is_async

    async def run() -> tuple[str, str]:
        said = await port.remember(user_id, "Maya keeps bees on her roof.", source="adapter")
        return said, await port.recall(user_id, "Who keeps bees?")

    said, recalled = asyncio.run(run())
    assert said.startswith("Remembered as ")
    assert "Maya keeps bees on her roof." in recalled
    with pytest.raises(TypeError, match="AsyncMemory serves only the async calls"):
        port.call("facts", user_id=user_id)
