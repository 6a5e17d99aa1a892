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
  user-role item (an ``instructions`` callable cannot see the new input); time-boxed
  (``recall_timeout``): hmem down or slow = the input unchanged, never a failed run.
* ``HmemSession(inner, backend)`` — a ``Session``: the conversation history is
  ``inner``'s (any SDK ``Session``: ``SQLiteSession``, ``RedisSession``, ...), exactly as
  given; each user / assistant message added also goes to hmem's ``add`` (one extractor
  call per batch; ``background=True`` by default), or, without a language model, the
  user's statements to ``remember`` as said. ``clear_session`` clears the history only:
  hmem's memory is never erased through a session.

The user comes from the run context (``context.user_id`` / ``context["user_id"]`` or your
``user_of(context)``; the SDK passes it to a session's methods as ``wrapper``), or for a
session used outside a run from its ``user_id``; never from a tool argument or the model.
No tool erases anything.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from hmem.errors import HmemError
from hmem.faces.adapters._core import (
    RECALL_TIMEOUT,
    Backend,
    Port,
    check_user,
    fail_open,
    missing,
    tool_error,
)
from hmem.faces.adapters._turns import Turn, TurnWriter, write_unrefused

try:
    from agents import FunctionTool, RunContextWrapper, function_tool
    from agents.exceptions import UserError
    from agents.items import TResponseInputItem
    from agents.memory import Session, SessionABC, SessionSettings
    from agents.run_config import CallModelData, ModelInputData
except ImportError as exc:  # the framework is the openai-agents extra
    raise missing("openai-agents", "openai-agents") from exc

__all__ = ["HmemSession", "UserOf", "hmem_input_filter", "hmem_tools", "user_from_context"]

UserOf = Callable[[Any], str]
SOURCE = "openai-agents"


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
                source=SOURCE,
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
    backend: Backend,
    *,
    user_of: UserOf = user_from_context,
    k: int = 10,
    recall_timeout: float = RECALL_TIMEOUT,
) -> Callable[[CallModelData[Any]], Any]:
    """A ``call_model_input_filter`` putting recalled memory before the latest user
    message. Time-boxed: when hmem is down or slower than ``recall_timeout`` seconds the
    model's input goes on unchanged (a warning is logged), the run never fails for it."""
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
        user = user_of(data.context)  # a run without its user fails, before any read
        block = await fail_open(port.context(user, query, k=k), timeout=recall_timeout)
        if block is None:
            return data.model_data
        memory: TResponseInputItem = {"role": "user", "content": block}
        items.insert(last, memory)
        return ModelInputData(input=items, instructions=data.model_data.instructions)

    return memory_filter


def _accepts_wrapper(method: Any) -> bool:
    """Whether a session method takes the run's context (the SDK's opt-in: a ``wrapper``
    parameter that can be passed by keyword)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.name == "wrapper" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        for p in parameters
    )


async def _inner_call(method: Any, *args: Any, wrapper: RunContextWrapper[Any] | None) -> Any:
    """Call the inner session's method, with the run's context when it takes it."""
    if wrapper is not None and _accepts_wrapper(method):
        return await method(*args, wrapper=wrapper)
    return await method(*args)


class HmemSession(SessionABC):
    """An SDK ``Session`` whose history is ``inner``'s, exactly as given; the user's and
    the assistant's messages also go to hmem, so what was said becomes memory.

    * History: ``get_items`` (``limit``, else ``session_settings.limit``; the latest
      items in order), ``add_items``, ``pop_item``, ``clear_session`` are ``inner``'s,
      so the items come back as they went in (the dict, its keys, its order).
      ``session_settings`` is ``inner``'s too.
    * Memory: each batch of messages goes to hmem's ``add`` (one extractor call;
      ``background=True`` by default). Without a language model
      (``ModelNotConfiguredError``) the user's statements are remembered as said
      (``remember``, one per statement; questions and the assistant's words are not the
      user's facts): a session never fails for want of a model. With a model, the facts
      extracted are beside the verbatim history, not instead of it.
    * The user: the run context's (``context.user_id`` / ``context["user_id"]``, or
      your ``user_of(context)``) when the runner passes it (the SDK passes the run's
      context to sessions that take ``wrapper``, as this one does), else ``user_id``
      given here. A run whose user is not the session's ``user_id`` is refused
      (``UserError``): a session never writes one user's words into another's memory.
    * The write policy: a statement hmem refuses (a secret) is not remembered (logged
      with its kind, never its text); the history keeps what the run said, and the run
      goes on. ``clear_session`` clears the history only: hmem's memory is erased only
      by hmem's erasure (``erase_user``), never through a session.
    * ``close()`` closes ``inner`` as it closes (SQLiteSession's is sync; an async one's
      result is awaited by the caller); the hmem backend is the caller's and stays open.
    """

    def __init__(
        self,
        inner: Session,
        backend: Backend,
        *,
        user_id: str | None = None,
        user_of: UserOf = user_from_context,
        background: bool = True,
        extract: bool | None = None,
    ) -> None:
        self.inner = inner
        self.session_id = inner.session_id
        self._port = Port(backend)
        self._user_id = None if user_id is None else check_user(user_id)
        self._user_of = user_of
        self._writer = TurnWriter(self._port, source=SOURCE, extract=extract, background=background)

    @property  # type: ignore[override]  # the SDK declares a plain attribute
    def session_settings(self) -> SessionSettings | None:
        """``inner``'s settings (its ``limit`` applies when ``get_items`` gets none)."""
        return self.inner.session_settings

    @session_settings.setter
    def session_settings(self, value: SessionSettings | None) -> None:
        self.inner.session_settings = value

    def user(self, wrapper: RunContextWrapper[Any] | None = None) -> str:
        """The user this session writes for: the run context's, else ``user_id``."""
        context = None if wrapper is None else wrapper.context
        from_run = None
        if context is not None:
            try:
                from_run = self._user_of(context)
            except ValueError:  # a context without a user: the session's own
                if self._user_id is None:
                    raise
        if from_run is not None and self._user_id is not None and from_run != self._user_id:
            raise UserError(
                f"this HmemSession belongs to user {self._user_id!r}; the run's user is "
                f"{from_run!r}: one user's conversation never goes into another's memory"
            )
        user = from_run or self._user_id
        if user is None:
            raise UserError(
                "hmem needs the session's user: HmemSession(..., user_id=...) or "
                "Runner.run(..., context={'user_id': ...})"
            )
        return user

    async def get_items(
        self, limit: int | None = None, *, wrapper: RunContextWrapper[Any] | None = None
    ) -> list[TResponseInputItem]:
        items: list[TResponseInputItem] = await _inner_call(
            self.inner.get_items, limit, wrapper=wrapper
        )
        return items

    async def add_items(
        self, items: list[TResponseInputItem], *, wrapper: RunContextWrapper[Any] | None = None
    ) -> None:
        user = self.user(wrapper)  # before anything is stored: a wrong user stores nothing
        await _inner_call(self.inner.add_items, items, wrapper=wrapper)
        raw: list[Any] = list(items)  # a union of many TypedDicts: read as plain dicts
        turns = [
            Turn(role=item["role"], text=text)
            for item in raw
            if isinstance(item, Mapping)
            and item.get("role") in ("user", "assistant")
            and (text := _text(item))
        ]
        if not turns:
            return
        await write_unrefused(self._writer, user, turns, session_id=self.session_id)

    async def pop_item(
        self, *, wrapper: RunContextWrapper[Any] | None = None
    ) -> TResponseInputItem | None:
        item: TResponseInputItem | None = await _inner_call(self.inner.pop_item, wrapper=wrapper)
        return item

    async def clear_session(self, *, wrapper: RunContextWrapper[Any] | None = None) -> None:
        # the history only: hmem's memory is erased by erase_user, never by a session
        await _inner_call(self.inner.clear_session, wrapper=wrapper)

    def close(self) -> Any:
        """Close ``inner`` as it closes (returns what its ``close`` returns: None, or an
        awaitable for an async session); the hmem backend is the caller's, left open."""
        close = getattr(self.inner, "close", None)
        return close() if callable(close) else None
