"""OpenAI Agents SDK: hmem's function tools, recalled memory in the model's input, and a
``Session`` that forwards the conversation to ``add``.

::

    agent = Agent(name="assistant", tools=hmem_tools(client))
    config = RunConfig(call_model_input_filter=hmem_input_filter(client))
    await Runner.run(agent, "Where did I live before Paris?", context={"user_id": "maya"},
                     run_config=config)

* ``hmem_tools(backend)`` — ``recall``, ``remember``, ``forget`` (closes: restorable),
  ``history`` as ``FunctionTool``s; the texts are the MCP server's.
* ``hmem_input_filter(backend)`` — for ``RunConfig.call_model_input_filter``: searches
  with the latest user message and puts hmem's dated memory block before it, as a
  user-role item (an ``instructions`` callable cannot see the new input).
* ``HmemSession(inner, backend, user_id=...)`` — the conversation history stays in
  ``inner`` (any SDK ``Session``, e.g. ``SQLiteSession``); each user / assistant message
  added is also sent to hmem's ``add`` (the extractor, one call per batch of turns;
  ``background=True`` by default). ``clear_session`` clears the history only: hmem's
  memory is never erased through a session.

The user comes from the run context (``context.user_id`` / ``context["user_id"]`` or your
``user_of(context)``), or for a session from its constructor, never from a tool
argument; no tool erases anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from hmem.errors import HmemError
from hmem.faces.adapters._core import Backend, Port, check_user, missing, tool_error

try:
    from agents import FunctionTool, RunContextWrapper, function_tool
    from agents.items import TResponseInputItem
    from agents.memory import Session, SessionABC, SessionSettings
    from agents.run_config import CallModelData, ModelInputData
except ImportError as exc:  # the framework is the openai-agents extra
    raise missing("openai-agents", "openai-agents") from exc

__all__ = ["HmemSession", "UserOf", "hmem_input_filter", "hmem_tools", "user_from_context"]

UserOf = Callable[[Any], str]


def user_from_context(context: Any) -> str:
    """The run's user: ``context.user_id`` or ``context["user_id"]``."""
    if isinstance(context, Mapping):
        user = context.get("user_id")
    else:
        user = getattr(context, "user_id", None)
    if user is None:
        raise ValueError(
            "hmem needs the run's user: Runner.run(..., context={'user_id': ...}) "
            "(or give user_of=...)"
        )
    return check_user(user)


def hmem_tools(backend: Backend, *, user_of: UserOf = user_from_context) -> list[FunctionTool]:
    """``recall``, ``remember``, ``forget``, ``history`` for the run's user."""
    port = Port(backend)

    @function_tool
    async def recall(
        ctx: RunContextWrapper[Any],
        query: str = "",
        as_of: str | None = None,
        as_of_event: str | None = None,
    ) -> str:
        """What is known about the user that answers the query (empty: all current
        facts); replaced facts are marked [replaced].

        Args:
            query: what to look for.
            as_of: what was believed at that instant (ISO 8601 with a zone).
            as_of_event: what was true in the world then (ISO 8601 with a zone).
        """
        try:
            user = user_of(ctx.context)
            return await port.recall(user, query, as_of=as_of, as_of_event=as_of_event)
        except HmemError as exc:
            return tool_error(exc)

    @function_tool
    async def remember(
        ctx: RunContextWrapper[Any],
        text: str,
        supersedes: list[str] | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
    ) -> str:
        """Remember one self-contained fact about the user (real names, absolute dates).

        Args:
            text: the fact.
            supersedes: ids of remembered facts this one replaces.
            valid_from: when it became true (ISO 8601 with a zone, e.g. 2026-03-01T00:00:00Z).
            valid_to: when it stopped being true (ISO 8601 with a zone).
        """
        try:
            return await port.remember(
                user_of(ctx.context),
                text,
                supersedes=supersedes or (),
                valid_from=valid_from,
                valid_to=valid_to,
                source="openai-agents",
            )
        except HmemError as exc:
            return tool_error(exc)

    @function_tool
    async def forget(ctx: RunContextWrapper[Any], fact_id: str, never_true: bool = False) -> str:
        """Stop believing a fact (it stays in history and can be restored).

        Args:
            fact_id: the fact's id, as recall shows it.
            never_true: true when it was a mistake rather than something that ended.
        """
        try:
            return await port.forget(user_of(ctx.context), fact_id, never_true=never_true)
        except HmemError as exc:
            return tool_error(exc)

    @function_tool
    async def history(ctx: RunContextWrapper[Any], fact_id: str) -> str:
        """A fact with what it replaced and what replaced it, with dates.

        Args:
            fact_id: the fact's id, as recall shows it.
        """
        try:
            return await port.history(user_of(ctx.context), fact_id)
        except HmemError as exc:
            return tool_error(exc)

    return [recall, remember, forget, history]


def _text(item: Any) -> str | None:
    """The text of a user / assistant message item, else None."""
    if not isinstance(item, Mapping) or item.get("type", "message") != "message":
        return None
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") in ("input_text", "output_text")
        ]
        return "\n".join(t for t in texts if t) or None
    return None


def hmem_input_filter(
    backend: Backend, *, user_of: UserOf = user_from_context, k: int = 10
) -> Callable[[CallModelData[Any]], Any]:
    """A ``call_model_input_filter`` putting recalled memory before the latest user message."""
    port = Port(backend)

    async def memory_filter(data: CallModelData[Any]) -> ModelInputData:
        items = list(data.model_data.input)
        last = next(
            (
                i
                for i in range(len(items) - 1, -1, -1)
                if isinstance(items[i], Mapping) and items[i].get("role") == "user"
            ),
            None,
        )
        query = _text(items[last]) if last is not None else None
        if last is None or not query:
            return data.model_data
        block = await port.context(user_of(data.context), query, k=k)
        memory: TResponseInputItem = {"role": "user", "content": block}
        items.insert(last, memory)
        return ModelInputData(input=items, instructions=data.model_data.instructions)

    return memory_filter


class HmemSession(SessionABC):
    """History in ``inner``; the user's and assistant's messages also go to hmem's ``add``."""

    def __init__(
        self,
        inner: Session,
        backend: Backend,
        *,
        user_id: str,
        background: bool = True,
    ) -> None:
        self.inner = inner
        self.session_id = inner.session_id
        self.session_settings: SessionSettings | None = inner.session_settings
        self._port = Port(backend)
        self._user_id = check_user(user_id)
        self._background = background

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        items: list[TResponseInputItem] = await self.inner.get_items(limit)
        return items

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        await self.inner.add_items(items)
        raw: list[Any] = list(items)  # a union of many TypedDicts: read as plain dicts
        messages = [
            {"role": str(item["role"]), "content": text}
            for item in raw
            if isinstance(item, Mapping)
            and item.get("role") in ("user", "assistant")
            and (text := _text(item))
        ]
        if messages:
            await self._port.acall(
                "add",
                messages,
                user_id=self._user_id,
                session_id=self.session_id,
                observed_at=datetime.now(UTC),
                background=self._background,
            )

    async def pop_item(self) -> TResponseInputItem | None:
        item: TResponseInputItem | None = await self.inner.pop_item()
        return item

    async def clear_session(self) -> None:
        await self.inner.clear_session()  # the history only: memory is closed, never erased
