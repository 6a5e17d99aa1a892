"""CrewAI: ``HmemCrewMemory``, a ``crewai.Memory`` whose records live in hmem, and tools.

    from crewai import Agent, Crew, Task
    from hmem.faces.adapters.crewai import HmemCrewMemory

    memory = HmemCrewMemory(backend=hmem.Client(url, api_key=key), user_id="maya")
    crew = Crew(agents=[...], tasks=[...], memory=memory)

Crew's own machinery then calls it: before a task ``recall(task.description)`` (its
lines reach the prompt as "Relevant memories"), after it ``extract_memories`` +
``remember_many`` (the task as the user's turn, the result as the assistant's: hmem's
extractor infers facts, dates and what they replace), and the "Search memory" / "Save
to memory" tools CrewAI gives agents call ``recall`` / ``remember``.

| CrewAI                         | hmem                                                       |
|--------------------------------|------------------------------------------------------------|
| ``recall(query, limit)``       | ``search``: each hit with its world dates, replaced or not |
| ``remember`` / ``remember_many``| ``add`` (model-free: the user's turn as said)             |
| ``extract_memories(raw)``      | ``[raw]``: extraction is hmem's one model call             |
| ``update(record_id, content)`` | ``remember(content, supersedes=[record_id])``: history kept |
| ``forget(record_ids=...)``     | ``close`` each (a retraction, restorable)                  |
| ``forget(scope/age/...)``, ``reset`` | refused: erasure is not the crew's call              |

The user is ``user_id``, fixed when the memory is built; no tool or model picks it.
CrewAI calls memory synchronously: ``hmem.Client`` or ``hmem.Memory`` fit as they are;
an ``AsyncClient`` runs on the memory's own event loop and is shut down by ``close()``
(give each memory its own).
CrewAI's scopes, categories and importance are ignored: hmem's scope is the user.
``HmemRecallTool`` / ``HmemRememberTool`` serve agents without a crew memory, with
``as_of`` / ``as_of_event`` for the past.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, PrivateAttr, field_validator

from hmem.faces.adapters._core import Backend, Port, check_user, missing
from hmem.faces.adapters._turns import Turn, TurnWriter, hit_line
from hmem.recall.models import SearchResult

try:
    from crewai.memory.types import MemoryMatch, MemoryRecord
    from crewai.memory.unified_memory import Memory
    from crewai.tools import BaseTool
except ImportError as exc:  # the framework is the crewai extra
    raise missing("crewai", "crewai") from exc

__all__ = ["HmemCrewMemory", "HmemRecallTool", "HmemRememberTool", "hmem_tools"]

SOURCE = "crewai"
T = TypeVar("T")


class _Loop:
    """One private event loop on a thread: CrewAI calls memory synchronously, from
    its own threads and from inside running loops, and an ``AsyncClient`` must stay
    on the loop it first ran on."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=self._serve, args=(loop,), daemon=True).start()
                self._loop = loop
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    @staticmethod
    def _serve(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.run_forever()
        loop.close()

    def stop(self) -> None:
        with self._lock:
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._loop = None


class _NoStorage:
    """Stands in for CrewAI's vector store (LanceDB by default), which hmem replaces:
    nothing of CrewAI's storage path may run, or create a directory."""

    def __getattr__(self, name: str) -> Any:
        raise NotImplementedError(f"HmemCrewMemory keeps no CrewAI storage ({name})")


def _turns(content: str) -> list[Turn]:
    """CrewAI's after-task dump ("Task: ...\\nAgent: ...\\nExpected result: ...\\n
    Result: ...") as the user's request and the agent's answer; anything else as a
    statement for the user."""
    now = datetime.now(UTC)
    if content.startswith("Task: ") and "\nResult: " in content:
        head, result = content.split("\nResult: ", 1)
        task = head.removeprefix("Task: ").split("\nAgent: ", 1)[0]
        return [Turn("user", task, now), Turn("assistant", result, now)]
    return [Turn("user", content, now)]


class HmemCrewMemory(Memory):
    """CrewAI's unified memory, kept in hmem for one user."""

    user_id: str = Field(description="the hmem user this crew's memory belongs to")
    extract: bool | None = Field(
        default=None, description="hmem's extractor: None = when the backend has a model"
    )
    storage: Any = Field(default_factory=_NoStorage)
    _backend: Backend = PrivateAttr()
    _port: Port = PrivateAttr()
    _writer: TurnWriter = PrivateAttr()
    _loop: _Loop = PrivateAttr(default_factory=_Loop)

    def __init__(self, *, backend: Backend, **data: Any) -> None:
        super().__init__(**data)
        self._port = Port(backend)
        self._writer = TurnWriter(self._port, source=SOURCE, extract=self.extract)

    @field_validator("user_id")
    @classmethod
    def _valid_user(cls, user_id: str) -> str:
        return check_user(user_id)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> HmemCrewMemory:
        # Crew copies its agents and their memory; the backend (a driver, a client) and
        # its loop are shared, never copied.
        memo = {} if memo is None else memo
        memo[id(self._port)], memo[id(self._writer)] = self._port, self._writer
        memo[id(self._loop)] = self._loop
        copied = super().__deepcopy__(memo)
        assert isinstance(copied, HmemCrewMemory)
        return copied

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run(coro)

    # -- reads --------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        limit: int = 10,
        depth: Literal["shallow", "deep"] = "deep",
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryMatch]:
        if not query.strip():
            return []
        found: SearchResult = self._run(
            self._port.acall("search", query, user_id=self.user_id, k=limit)
        )
        now = datetime.now(UTC)
        return [
            MemoryMatch(
                record=MemoryRecord(
                    id=hit.fact.id,
                    content=hit_line(hit, now),
                    created_at=hit.fact.known_from,
                    last_accessed=now,
                    source=hit.fact.speaker,
                    metadata={"valid_from": f"{hit.fact.valid_from:%Y-%m-%d}"},
                ),
                score=hit.score,
                match_reasons=list(hit.sources),
            )
            for hit in found.hits
        ]

    def extract_memories(self, content: str) -> list[str]:
        return [content]  # hmem's extractor reads it, in one call, when it is stored

    # -- writes -------------------------------------------------------------------------
    def _write(self, contents: list[str]) -> list[str]:
        added: list[str] = []
        for content in contents:
            result = self._run(self._writer.write(self.user_id, _turns(content)))
            added += list(getattr(result, "added", []) or [])
        return added

    def remember(
        self,
        content: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> MemoryRecord | None:
        if self.read_only:
            return None
        added = self._write([content])
        return MemoryRecord(id=added[0] if added else "", content=content)

    def remember_many(
        self,
        contents: list[str],
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> list[MemoryRecord]:
        if self.read_only or not contents:
            return []
        # stored before returning: the next task's recall must see it
        self._write(contents)
        return []

    def update(
        self,
        record_id: str,
        content: str | None = None,
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
    ) -> MemoryRecord:
        """A new fact that supersedes the record: the old one stays in its history."""
        if content is None:
            raise ValueError("hmem updates a record by superseding it: pass content")
        result = self._run(
            self._port.acall(
                "remember", content, user_id=self.user_id, supersedes=[record_id], source=SOURCE
            )
        )
        return MemoryRecord(id=result.added[0] if result.added else record_id, content=content)

    def forget(
        self,
        scope: str | None = None,
        categories: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
        record_ids: list[str] | None = None,
    ) -> int:
        """Closes the given records (restorable); hmem forgets nothing wholesale."""
        if scope or categories or older_than or metadata_filter or not record_ids:
            raise ValueError(
                "hmem forgets records by id only (forget(record_ids=[...]) closes them, "
                "restorably); by scope, category or age it would be an erasure"
            )
        for record_id in record_ids:
            self._run(
                self._port.acall("close", record_id, user_id=self.user_id, reason="retraction")
            )
        return len(record_ids)

    def reset(self, scope: str | None = None) -> None:
        raise PermissionError(
            "erasing a user's memory is not the crew's call: use hmem's erase_user "
            "(the API's DELETE /v1/users/{user_id}) deliberately"
        )

    def reset_all(self) -> None:
        self.reset()

    def drain_writes(self) -> None:
        return None  # writes are synchronous

    def close(self) -> None:
        """Stops the memory's event loop; an ``AsyncClient`` backend, whose connections
        live on that loop, is shut down with it."""
        if self._port.is_async:
            self._run(self._port.backend.shutdown())  # type: ignore[arg-type]
        self._loop.stop()


class RecallArgs(BaseModel):
    query: str = Field(description="what to look for in the user's memory")
    as_of: str | None = Field(None, description="ISO date-time with zone: what was believed then")
    as_of_event: str | None = Field(None, description="ISO date-time with zone: what was true then")


class RememberArgs(BaseModel):
    text: str = Field(description="one fact about the user, in a sentence")
    supersedes: list[str] = Field(
        default_factory=list, description="ids of facts this one replaces"
    )


class _UserTool(BaseTool):
    """A tool bound to one user: the port it calls and the loop it runs async calls on
    (not part of the tool's schema)."""

    port: Any = Field(exclude=True)
    user_id: str
    loop: Any = Field(default_factory=_Loop, exclude=True)


class HmemRecallTool(_UserTool):
    """Search the user's memory (dated facts; ``[replaced]`` = no longer true)."""

    name: str = "hmem_recall"
    description: str = (
        "Search what is remembered about the user. Each line has the fact's id, text and "
        "when it was true; [replaced] marks facts that are no longer true."
    )
    args_schema: type[BaseModel] = RecallArgs

    def _run(self, query: str, as_of: str | None = None, as_of_event: str | None = None) -> str:
        return str(
            self.loop.run(
                self.port.recall(self.user_id, query, as_of=as_of, as_of_event=as_of_event)
            )
        )


class HmemRememberTool(_UserTool):
    """Store one fact about the user (``supersedes``: the ids it replaces)."""

    name: str = "hmem_remember"
    description: str = (
        "Remember one fact about the user. If it replaces facts recalled before, pass "
        "their ids in supersedes (the old ones stay in the history)."
    )
    args_schema: type[BaseModel] = RememberArgs

    def _run(self, text: str, supersedes: list[str] | None = None) -> str:
        return str(
            self.loop.run(
                self.port.remember(self.user_id, text, supersedes=supersedes or (), source=SOURCE)
            )
        )


def hmem_tools(backend: Backend, *, user_id: str) -> list[BaseTool]:
    """Recall and remember tools for one user (no forget, no erase: not a model's call)."""
    port, user, loop = Port(backend), check_user(user_id), _Loop()
    return [
        HmemRecallTool(port=port, user_id=user, loop=loop),
        HmemRememberTool(port=port, user_id=user, loop=loop),
    ]
