"""``AsyncMemory``: the embedded ``Memory`` for asyncio frameworks, every call awaited.

Each call runs the ``Memory`` method of the same name in a worker thread
(``asyncio.to_thread``), so the event loop never waits on Neo4j, an embedder or spaCy.
Why threads and not the async Neo4j driver: the read and write paths (the statement
catalog's runners, recall, the ingest pipeline, the embedders, spaCy) are synchronous
code; an async driver would need an async copy of each of them. The driver is thread-safe
and the HTTP API already calls one ``Memory`` from a thread pool; a thread hop costs
microseconds beside a query's milliseconds.

No method is written out here: ``_threaded(Memory.search)`` takes the method's own
signature (a ``ParamSpec``), so mypy holds ``AsyncMemory`` to ``AsyncMemorySurface``
with ``Memory``'s parameters, and ``inspect.signature`` shows them.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from hmem.config import Config
from hmem.memory import Memory

__all__ = ["AsyncMemory"]

P = ParamSpec("P")
R = TypeVar("R")


def _threaded(
    method: Callable[Concatenate[Memory, P], R],
) -> Callable[Concatenate[AsyncMemory, P], Coroutine[Any, Any, R]]:
    """``method`` of the wrapped ``Memory``, run in a worker thread and awaited."""

    @functools.wraps(method)
    async def call(self: AsyncMemory, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(method, self.memory, *args, **kwargs)

    return call


class AsyncMemory:
    """``Memory``'s calls, awaited: ``await memory.search("...", user_id="maya")``.

    ``AsyncMemory(config)`` opens a ``Memory`` of its own (closed by ``shutdown``);
    ``AsyncMemory(memory)`` wraps one you opened (``shutdown`` closes it too).
    ``memory`` is the wrapped ``Memory``, for the calls that stay synchronous.
    """

    def __init__(self, memory: Memory | Config | None = None) -> None:
        self.memory = memory if isinstance(memory, Memory) else Memory(memory)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.shutdown()

    # the surface (hmem.surface.AsyncMemorySurface)
    remember = _threaded(Memory.remember)
    remember_many = _threaded(Memory.remember_many)
    import_facts = _threaded(Memory.import_facts)
    add = _threaded(Memory.add)
    job = _threaded(Memory.job)
    retry_job = _threaded(Memory.retry_job)
    search = _threaded(Memory.search)
    get = _threaded(Memory.get)
    history = _threaded(Memory.history)
    facts = _threaded(Memory.facts)
    close = _threaded(Memory.close)
    restore = _threaded(Memory.restore)
    erase = _threaded(Memory.erase)
    erase_user = _threaded(Memory.erase_user)
    export = _threaded(Memory.export)
    audit = _threaded(Memory.audit)
    profile = _threaded(Memory.profile)
    set_profile = _threaded(Memory.set_profile)
    shutdown = _threaded(Memory.shutdown)
    # what only an embedded memory does
    init_schema = _threaded(Memory.init_schema)
    warm_up = _threaded(Memory.warm_up)
    maintain = _threaded(Memory.maintain)
    run_jobs = _threaded(Memory.run_jobs)
    catch_up = _threaded(Memory.catch_up)
    import_sessions = _threaded(Memory.import_sessions)


if TYPE_CHECKING:  # mypy holds AsyncMemory to the surface (hmem/surface.py)
    from hmem.surface import AsyncMemorySurface

    _surface: type[AsyncMemorySurface] = AsyncMemory
