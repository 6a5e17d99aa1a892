"""CrewAI: ``HmemCrewMemory``, a ``crewai.Memory`` whose records live in hmem, and tools.

    from crewai import Agent, Crew, Task
    from hmem.faces.adapters.crewai import HmemCrewMemory

    memory = HmemCrewMemory(backend=hmem.Client(url, api_key=key), user_id="maya")
    crew = Crew(agents=[...], tasks=[...], memory=memory)

It is CrewAI's own ``Memory`` (scopes, ``MemoryScope`` / ``MemorySlice``, ``read_only``,
``list_records``, ``info``, ``tree``, ``list_categories``, ``update``, ``forget``) over a
storage backend that keeps each ``MemoryRecord`` as one hmem fact of the user: its
content, id, scope, categories, metadata, importance, source and privacy come back as
they were given. What hmem changes, and adds:

| CrewAI                          | hmem                                                       |
|---------------------------------|------------------------------------------------------------|
| ``recall(query, scope, limit)`` | ``search`` (hybrid: vector, full text, graph; its own      |
|                                 | relevance cut-off), narrowed to the scope, categories and  |
|                                 | private records the caller may see; no model call          |
| ``remember`` / ``remember_many``| one fact per record, as given, stored before it returns   |
|                                 | (no model: scope ``/``, importance 0.5 unless given)       |
| ``extract_memories(raw)``       | with an ``llm`` given, CrewAI's; else ``[raw]``: the crew's |
|                                 | after-task text is stored as it is and, with a model on    |
|                                 | hmem's side, also goes to hmem's extractor (one model      |
|                                 | call): its facts come beside the record, not instead      |
| ``update(record_id, ...)``      | a new fact that SUPERSEDES the record (history kept);      |
|                                 | the old id still finds the current record                  |
| ``forget(...)``, ``reset``      | the matching records closed (a retraction: ``restore``     |
|                                 | undoes it); erasing stays ``erase_user``, not the crew's   |
| ``read_only=True``              | nothing written: remember, update, recall's access times   |

Facts hmem learnt otherwise (its extractor, another face) are records of scope ``/``
whose content is hmem's dated line (when true; replaced or not). A record's attributes
are kept with the fact in full: in its source when they fit hmem's 200 characters,
else as JSON in its text beside the content (that record's search text then carries
them too); ``last_accessed`` is refreshed in this process. The write policy holds:
a secret is refused with ``hmem.errors.PolicyRefusal`` and nothing is stored.

The user is ``user_id``, fixed when the memory is built; no tool or model picks it.
CrewAI calls memory synchronously: ``hmem.Client`` or ``hmem.Memory`` fit as they are;
an ``AsyncClient`` runs on the memory's own event loop and is shut down by ``close()``
(give each memory its own).
``HmemRecallTool`` / ``HmemRememberTool`` serve agents without a crew memory, with
``as_of`` / ``as_of_event`` for the past.
"""

from __future__ import annotations

from collections.abc import Coroutine
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, PrivateAttr, field_validator

from hmem.errors import ModelNotConfiguredError
from hmem.faces.adapters._core import Backend, Port, check_user, missing
from hmem.faces.adapters._turns import Turn, TurnWriter, hit_line
from hmem.recall.models import SearchResult

try:
    from crewai.memory.types import MemoryMatch, MemoryRecord
    from crewai.memory.unified_memory import Memory
    from crewai.memory.utils import join_scope_paths
    from crewai.tools import BaseTool
except ImportError as exc:  # the framework is the crewai extra
    raise missing("crewai", "crewai") from exc

from hmem.faces.adapters._crewai_storage import HmemStorage, Loop, in_scope

__all__ = ["HmemCrewMemory", "HmemRecallTool", "HmemRememberTool", "hmem_tools"]

SOURCE = "crewai"
T = TypeVar("T")


def _is_dump(content: str) -> bool:
    """CrewAI's after-task text ("Task: ...\\nResult: ...", an agent's kickoff "Input:
    ...\\nResult: ..."), which ``extract_memories`` hands on for hmem's extractor."""
    return content.startswith(("Task: ", "Input: ")) and "\nResult: " in content


def _turns(content: str) -> list[Turn]:
    """CrewAI's after-task dump as the user's request and the agent's answer."""
    now = datetime.now(UTC)
    head, result = content.split("\nResult: ", 1)
    task = head.removeprefix("Task: ").removeprefix("Input: ").split("\nAgent: ", 1)[0]
    return [Turn("user", task, now), Turn("assistant", result, now)]


class HmemCrewMemory(Memory):
    """CrewAI's unified memory, kept in hmem for one user."""

    user_id: str = Field(description="the hmem user this crew's memory belongs to")
    extract: bool | None = Field(
        default=None, description="hmem's extractor: None = when the backend has a model"
    )
    _port: Port = PrivateAttr()
    _writer: TurnWriter = PrivateAttr()
    _loop: Loop = PrivateAttr()
    _model_free: bool = PrivateAttr(default=False)

    def __init__(self, *, backend: Backend, **data: Any) -> None:
        port, loop = Port(backend), Loop()
        user = check_user(data.get("user_id"))
        data["storage"] = HmemStorage(port, user, loop)
        super().__init__(**data)
        self._port, self._loop = port, loop
        # the writer insists on the extractor; model-free is decided here (_store)
        self._writer = TurnWriter(self._port, source=SOURCE, extract=True)
        self._model_free = self.extract is False

    @field_validator("user_id")
    @classmethod
    def _valid_user(cls, user_id: str) -> str:
        return check_user(user_id)

    @property
    def hmem_storage(self) -> HmemStorage:
        storage = self._storage
        assert isinstance(storage, HmemStorage)
        return storage

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

    def _scope(self, scope: str | None, root_scope: str | None = None) -> str | None:
        root = root_scope if root_scope is not None else self.root_scope
        if scope is None and not root:
            return None
        return str(join_scope_paths(root, scope))

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
        """hmem's hybrid search (its own relevance cut-off: nothing when nothing
        matches), narrowed to the scope, categories and the records this caller may see;
        ``depth`` is hmem's one search either way (no model call)."""
        if not query.strip():
            return []
        where = self._scope(scope)
        filtered = bool(where and where != "/") or bool(categories)
        found: SearchResult = self._run(
            self._port.acall(
                "search", query, user_id=self.user_id, k=limit * 5 if filtered else limit * 2
            )
        )
        now = datetime.now(UTC)
        matches: list[MemoryMatch] = []
        for hit in found.hits:
            record = self.hmem_storage.to_record(hit.fact, hit_line(hit, now))
            if not in_scope(record.scope, where):
                continue
            if categories and not set(categories) & set(record.categories):
                continue
            if (
                record.private
                and not include_private
                and (source is None or record.source != source)
            ):
                continue
            matches.append(
                MemoryMatch(record=record, score=hit.score, match_reasons=list(hit.sources))
            )
        matches = matches[:limit]
        if matches and not self.read_only:
            self.hmem_storage.touch_records([m.record.id for m in matches])
            for m in matches:
                m.record.last_accessed = self.hmem_storage._accessed[m.record.id]
        return matches

    def extract_memories(self, content: str) -> list[str]:
        """With an ``llm`` given to this memory, CrewAI's own extraction; without, the
        content as it is (hmem's extractor reads it when it is stored, or, model-free,
        it is stored as it is)."""
        if not content.strip():
            return []
        if "llm" in self.model_fields_set:
            return list(super().extract_memories(content))
        return [content]

    # -- writes -------------------------------------------------------------------------
    def _record(
        self,
        content: str,
        scope: str | None,
        categories: list[str] | None,
        metadata: dict[str, Any] | None,
        importance: float | None,
        source: str | None,
        private: bool,
        root_scope: str | None,
    ) -> MemoryRecord:
        return MemoryRecord(
            content=content,
            scope=self._scope(scope, root_scope) or "/",
            categories=list(categories or []),
            metadata=dict(metadata or {}),
            importance=self.default_importance if importance is None else importance,
            source=source,
            private=private,
        )

    def _store(self, record: MemoryRecord) -> MemoryRecord:
        """A record as it was given; CrewAI's after-task text also goes to hmem's
        extractor when the backend has a model: its facts come beside the record."""
        extract = _is_dump(record.content) and not self._model_free
        stored_id = self.hmem_storage.write(record, infer=False if extract else None)
        if extract:
            try:
                self._run(self._writer.write(self.user_id, _turns(record.content)))
            except ModelNotConfiguredError:
                if self.extract:
                    raise
                self._model_free = True  # the backend has no model: the record only
        return record.model_copy(update={"id": stored_id})

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
        record = self._record(
            content, scope, categories, metadata, importance, source, private, root_scope
        )
        return self._store(record)

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
        """Stored before returning (the next task's recall must see it); returns ``[]``
        as CrewAI's does."""
        if self.read_only:
            return []
        for content in contents:
            if content.strip():
                self._store(
                    self._record(
                        content,
                        scope,
                        categories,
                        metadata,
                        importance,
                        source,
                        private,
                        root_scope,
                    )
                )
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
        """A new fact that supersedes the record (the old one stays in its history);
        read-only: the record as it is, nothing written. Returns the record under the
        id hmem keeps it now (the old id finds it too)."""
        existing = self._storage.get_record(record_id)
        if existing is None:
            raise ValueError(f"Record not found: {record_id}")
        if self.read_only:
            return existing
        changes = {
            "content": content,
            "scope": scope,
            "categories": categories,
            "metadata": metadata,
            "importance": importance,
        }
        updated = existing.model_copy(
            update={k: v for k, v in changes.items() if v is not None}
            | {"last_accessed": datetime.now(UTC).replace(tzinfo=None)}
        )
        new_id = self.hmem_storage.write(updated, supersedes=existing.id)
        return updated.model_copy(update={"id": new_id})

    def close(self) -> None:
        """CrewAI's close, then the memory's event loop stops; an ``AsyncClient``
        backend, whose connections live on that loop, is shut down with it."""
        super().close()
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
    loop: Any = Field(default_factory=Loop, exclude=True)


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
    port, user, loop = Port(backend), check_user(user_id), Loop()
    return [
        HmemRecallTool(port=port, user_id=user, loop=loop),
        HmemRememberTool(port=port, user_id=user, loop=loop),
    ]
