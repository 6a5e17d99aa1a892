"""``HmemStore`` inside LangGraph's own machinery, on a real Neo4j (and over HTTP).

A compiled ``StateGraph`` with ``store=HmemStore(...)``: a recall node reads
``runtime.store``, a scripted chat model (langchain-core's ``GenericFakeChatModel``)
calls a tool that writes through ``InjectedStore``, run by the prebuilt ``ToolNode``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Annotated, Any, cast

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import StructuredTool
from langgraph.config import get_store
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedStore, ToolNode, tools_condition
from langgraph.store.base import BaseStore, SearchItem
from neo4j import Driver
from pydantic import Field

from hmem import AsyncClient, AsyncMemory, Config, Memory
from hmem.errors import ValidationError
from hmem.faces.adapters.langgraph import AsyncHmemStore, HmemSearchItem, HmemStore, StoreRefusal
from tests.adapters import _story as story
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server


class RecordingModel(GenericFakeChatModel):
    """A scripted chat model that keeps every input it was given."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def _value(content: str, valid_from: str | None, observed_at: str | None) -> dict[str, str]:
    value = {"content": content}
    if valid_from:
        value["valid_from"] = valid_from
    if observed_at:
        value["observed_at"] = observed_at
    return value


def _save(
    key: str,
    content: str,
    store: Annotated[BaseStore, InjectedStore()],
    valid_from: str | None = None,
    observed_at: str | None = None,
) -> str:
    # ("memories",): the store takes the user from config's langgraph_user_id
    store.put(("memories",), key, _value(content, valid_from, observed_at))
    return f"saved {key}"


async def _asave(
    key: str,
    content: str,
    store: Annotated[BaseStore, InjectedStore()],
    valid_from: str | None = None,
    observed_at: str | None = None,
) -> str:
    await store.aput(("memories",), key, _value(content, valid_from, observed_at))
    return f"saved {key}"


save_memory = StructuredTool.from_function(
    func=_save,
    coroutine=_asave,
    name="save_memory",
    description="Save or update one memory about the user under a key.",
)


def _graph(store: HmemStore, model: RecordingModel) -> Any:
    def ask(state: MessagesState) -> tuple[tuple[str, ...], str]:
        # ("memories",) names no user: the store takes config's langgraph_user_id
        return ("memories",), str(state["messages"][-1].content)

    def block(items: list[SearchItem]) -> dict[str, Any]:
        lines = [HmemStore.describe(item) for item in items] or ["(nothing)"]
        text = "What you remember about the user:\n" + "\n".join(lines)
        return {"messages": [HumanMessage(text, name="memory")]}

    replaced = {"include_replaced": True}

    def recall(state: MessagesState) -> dict[str, Any]:  # graph.invoke
        namespace, question = ask(state)
        return block(get_store().search(namespace, query=question, filter=replaced))

    async def arecall(state: MessagesState) -> dict[str, Any]:  # graph.ainvoke
        namespace, question = ask(state)
        return block(await get_store().asearch(namespace, query=question, filter=replaced))

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}  # the script holds its tool calls

    graph = StateGraph(MessagesState)
    graph.add_node("recall", RunnableLambda(recall, afunc=arecall))
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([save_memory]))
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(store=store)


def _call(**args: Any) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "save_memory", "args": args, "id": uuid.uuid4().hex}])


def _script() -> list[AIMessage]:
    """The model's turns: session 0 saves London, session 1 updates the same key with
    the move (its dates), session 2 (and the other user's) answers."""
    return [
        _call(key="home", content=story.LONDON, valid_from=story.LONDON_FROM,
              observed_at=story.LONDON_FROM),
        AIMessage("Noted."),
        _call(key="home", content=story.PARIS, valid_from=story.MOVED, observed_at=story.TOLD),
        AIMessage("Noted, Paris it is."),
        AIMessage("You lived in London."),
        AIMessage("I don't know."),
    ]  # fmt: skip


def _text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


def _config(user: str) -> RunnableConfig:
    return {"configurable": {"langgraph_user_id": user}}


def test_two_sessions_in_a_compiled_graph_sync_and_async(
    memory: Memory, user_id: str, other_user: str
) -> None:
    store = HmemStore(memory)
    model = RecordingModel(messages=iter(_script()))
    app = _graph(store, model)
    app.invoke({"messages": [HumanMessage(story.SESSION_0)]}, _config(user_id))
    app.invoke({"messages": [HumanMessage(story.SESSION_1)]}, _config(user_id))
    asyncio.run(app.ainvoke({"messages": [HumanMessage(story.SESSION_2)]}, _config(user_id)))
    story.assert_story(_text(model.seen[-1]))
    asyncio.run(app.ainvoke({"messages": [HumanMessage(story.SESSION_2)]}, _config(other_user)))
    story.assert_nothing_of_maya(_text(model.seen[-1]))

    # the update was a supersession: one key, two facts, the old one closed, not erased
    with pytest.raises(ValidationError):  # outside a run, ("memories",) names no user
        store.get(("memories",), "home")
    item = HmemStore(memory, user_id=user_id).get(("memories",), "home")
    assert item is not None and item.value == {
        "content": story.PARIS,
        "valid_from": "2026-11-01T00:00:00+00:00",
        "observed_at": "2026-12-04T10:00:00+00:00",
    }
    chain = memory.history(HmemStore.root_id(("memories",), "home"), user_id=user_id)
    assert [s.fact.text for s in chain.successors] == [story.PARIS]
    assert chain.fact.close_reason == "contradiction"
    assert HmemStore(memory, user_id=other_user).get(("memories",), "home") is None


def test_store_semantics_delete_closes_and_as_of_reads_the_past(
    memory: Memory, user_id: str
) -> None:
    store = HmemStore(memory, user_id=user_id)  # one user, any namespace
    ns = ("prefs", "food")
    store.put(ns, "diet", {"content": "Maya is vegetarian.", "valid_from": "2025-01-01T00:00:00Z"})
    before = datetime.now(UTC)
    store.put(ns, "diet", {"content": "Maya is vegan.", "valid_from": "2026-06-01T00:00:00Z"})
    store.put(ns, "raw", {"n": 1, "tags": ["a"]})
    assert store.get(ns, "raw") is not None and store.get(ns, "raw").value == {  # type: ignore[union-attr]
        "n": 1,
        "tags": ["a"],
    }
    now = store.search(("prefs",), query="vegan vegetarian")  # hmem's hits first, then the rest
    assert now[0].value["content"] == "Maya is vegan." and now[0].score is not None
    assert "Maya is vegetarian." not in [i.value.get("content") for i in now]
    # belief time: what the store believed before the update
    then = store.search(("prefs",), query="vegetarian", filter={"as_of": before.isoformat()})
    assert [i.value["content"] for i in then] == ["Maya is vegetarian."]
    # world time: what was true in 2025
    world = store.search(ns, filter={"as_of_event": "2025-06-01T00:00:00Z"})
    assert "Maya is vegetarian." in [i.value.get("content") for i in world]
    hits = store.search(ns, query="vegetarian", filter={"include_replaced": True})
    assert {(i.value.get("content"), cast(HmemSearchItem, i).replaced) for i in hits} >= {
        ("Maya is vegetarian.", True)
    }
    assert [i.key for i in store.search(ns, filter={"n": {"$gte": 1}})] == ["raw"]
    assert store.list_namespaces(prefix=("prefs",)) == [ns]

    store.delete(ns, "diet")
    assert store.get(ns, "diet") is None
    head = memory.history(HmemStore.root_id(ns, "diet"), user_id=user_id).successors[-1].fact
    assert head.close_reason == "retraction"  # closed, restorable
    memory.restore(head.id, user_id=user_id)
    assert store.get(ns, "diet").value["content"] == "Maya is vegan."  # type: ignore[union-attr]
    # a put after a delete continues the same key's history
    store.delete(ns, "diet")
    store.put(ns, "diet", {"content": "Maya eats fish again."})
    chain = memory.history(HmemStore.root_id(ns, "diet"), user_id=user_id)
    assert [s.fact.text for s in chain.successors] == ["Maya is vegan.", "Maya eats fish again."]


def test_the_user_comes_from_the_namespace_or_the_run_config(memory: Memory) -> None:
    store = HmemStore(memory)
    with pytest.raises(ValidationError, match="langgraph_user_id"):
        store.put(("memories",), "k", {"content": "x"})  # outside a run: no user
    with pytest.raises(ValidationError, match="user name"):
        store.put(("memories", "bad:user"), "k", {"content": "x"})
    with pytest.raises(TypeError, match="AsyncClient"):
        HmemStore(AsyncClient("http://127.0.0.1:9", api_key="k")).put(("m", "u"), "k", {"a": 1})


@pytest.fixture(scope="module")
def server(
    config: Config, memory: Memory, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    queue = tmp_path_factory.mktemp("queue") / "queue.sqlite3"
    with live_server(config.model_copy(update={"queue_path": queue})) as running:
        yield running


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory) as t:
        yield t


def test_round_trip_over_http_with_async_client(server: LiveServer, tenant: Tenant) -> None:
    maya, other = tenant.user("maya"), tenant.user("other")

    async def run() -> tuple[str, str]:
        async with AsyncClient(server.url, api_key=tenant.key) as client:
            model = RecordingModel(messages=iter(_script()))
            app = _graph(HmemStore(client), model)
            for said in (story.SESSION_0, story.SESSION_1, story.SESSION_2):
                await app.ainvoke({"messages": [HumanMessage(said)]}, _config(maya))
            mine = _text(model.seen[-1])
            await app.ainvoke({"messages": [HumanMessage(story.SESSION_2)]}, _config(other))
            return mine, _text(model.seen[-1])

    mine, theirs = asyncio.run(run())
    story.assert_story(mine)
    story.assert_nothing_of_maya(theirs)


# -- the store contract (issue 46): values as given, LangGraph's ranking, TTL -------------


def test_equal_values_under_two_keys_or_namespaces_are_two_items(
    memory: Memory, user_id: str
) -> None:
    """Defect 1: hmem's duplicate check merged the second put into the first."""
    store = HmemStore(memory, user_id=user_id)
    store.put(("docs", "a"), "k1", {"content": "dummy"})
    store.put(("docs", "b"), "k2", {"content": "dummy"})
    store.put(("docs", "a"), "k3", {"content": "dummy"})
    store.put(("docs", "a"), "j1", {"n": 1})
    store.put(("docs", "a"), "j2", {"n": 1})
    for namespace, key in [(("docs", "a"), "k1"), (("docs", "b"), "k2"), (("docs", "a"), "k3")]:
        item = store.get(namespace, key)
        assert item is not None and item.value == {"content": "dummy"}, (namespace, key)
    assert store.get(("docs", "a"), "j2").value == {"n": 1}  # type: ignore[union-attr]
    assert len(store.search(("docs",), limit=10)) == 5
    # replacing a key with a value another key holds replaces it too
    store.put(("docs", "a"), "k1", {"content": "other"})
    store.put(("docs", "a"), "k1", {"content": "dummy", "valid_from": "2020-01-01T00:00:00Z"})
    assert store.get(("docs", "a"), "k1").value["content"] == "dummy"  # type: ignore[union-attr]


def test_a_list_prefix_is_a_tuple_prefix(memory: Memory, user_id: str) -> None:
    """Defect 2: search(["test"]) matched nothing while ("test",) matched."""
    store = HmemStore(memory, user_id=user_id)
    store.put(("test", "x"), "k", {"a": 1})
    store.put(("other",), "k", {"a": 1})
    as_list = store.search(["test"])  # type: ignore[arg-type]
    assert [(i.namespace, i.key) for i in as_list] == [(("test", "x"), "k")]
    assert store.search(("test",)) == as_list
    assert store.list_namespaces(prefix=["test"]) == [("test", "x")]  # type: ignore[arg-type]


def test_a_replaced_key_is_a_supersession_and_scores_its_current_value(
    memory: Memory, user_id: str
) -> None:
    from tests.adapters.upstream.langgraph.checkpoint.embed_test_utils import (
        CharacterEmbeddings,
    )

    embed = CharacterEmbeddings(dims=64)
    index: Any = {"dims": 64, "embed": embed, "fields": ["text"]}
    store = HmemStore(memory, user_id=user_id, index=index)
    ns = ("notes",)
    store.put(ns, "n1", {"text": "zany zebra Xerxes"})
    store.put(ns, "n2", {"text": "something about dogs"})
    before = store.search(ns, query="zany zebra Xerxes")
    assert before[0].key == "n1" and before[0].score == pytest.approx(1.0)
    created = before[0].created_at
    store.put(ns, "n1", {"text": "new text about dogs"})
    after = {i.key: i for i in store.search(ns, query="zany zebra Xerxes")}
    assert after["n1"].value == {"text": "new text about dogs"}
    assert after["n1"].score is not None and after["n1"].score < 0.9
    assert after["n1"].created_at == created and after["n1"].updated_at > created
    # history under the item, never instead of it
    chain = memory.history(HmemStore.root_id(ns, "n1"), user_id=user_id)
    assert chain.fact.close_reason == "contradiction"
    assert [s.fact.known_to for s in chain.successors] == [None]
    old = store.search(ns, filter={"include_replaced": True}, limit=10)
    assert sorted(i.value["text"] for i in old if i.key == "n1") == [
        "new text about dogs",
        "zany zebra Xerxes",
    ]
    # index=False: stored, listed, never scored
    store.put(ns, "n3", {"text": "zany zebra Xerxes"}, index=False)
    unscored = {i.key: i.score for i in store.search(ns, query="zany zebra Xerxes")}
    assert unscored["n3"] is None


def test_ttl_expires_and_the_sweep_closes_restorably(memory: Memory, user_id: str) -> None:
    store = HmemStore(memory, user_id=user_id, ttl={"default_ttl": 0.5 / 60})
    assert store.supports_ttl
    store.put(("t",), "short", {"v": 1})
    store.put(("t",), "kept", {"v": 2}, ttl=None)
    assert store.get(("t",), "short") is not None
    time.sleep(0.7)
    assert store.get(("t",), "short") is None  # expired: not returned before the sweep
    assert [i.key for i in store.search(("t",))] == ["kept"]
    assert store.sweep_ttl() == 1
    head = memory.history(HmemStore.root_id(("t",), "short"), user_id=user_id).fact
    assert head.close_reason == "retraction"  # closed, not erased
    assert memory.restore(head.id, user_id=user_id).known_to is None


def test_async_store_on_async_memory(memory: Memory, user_id: str) -> None:
    async def run() -> None:
        store = AsyncHmemStore(AsyncMemory(memory), user_id=user_id, ttl={"default_ttl": 60})
        await store.aput(("a", "b"), "k", {"x": [1, 2]})
        item = await store.aget(("a", "b"), "k")
        assert item is not None and item.value == {"x": [1, 2]}
        assert [i.key for i in await store.asearch(["a"])] == ["k"]  # type: ignore[arg-type]
        with pytest.raises(asyncio.InvalidStateError):  # would block its own loop
            store.get(("a", "b"), "k")
        got = await asyncio.to_thread(store.get, ("a", "b"), "k")  # another thread: fine
        assert got is not None and got.value == {"x": [1, 2]}
        assert await store.sweep_ttl() == 0

    asyncio.run(run())


def test_hmem_guarantees_hold_through_the_store(
    memory: Memory, user_id: str, other_user: str
) -> None:
    store = HmemStore(memory)  # the user is the namespace's label at position 1
    mine, theirs = ("memories", user_id), ("memories", other_user)
    store.put(mine, "home", {"content": "Maya lives in Paris."})
    # isolation: another user's namespace sees nothing of this user's
    assert store.get(theirs, "home") is None
    assert store.search(theirs, query="Paris") == []
    assert store.list_namespaces(prefix=theirs) == []
    # the write policy: a credential is refused with a ValueError, nothing is stored
    with pytest.raises(ValueError, match="credential") as refused:
        store.put(mine, "pw", {"content": "My password is hunter2-Blue-77!"})
    assert isinstance(refused.value, StoreRefusal) and refused.value.kind == "credential"
    with pytest.raises(StoreRefusal):
        store.put(mine, "pw", {"note": "My password is hunter2-Blue-77!"})
    assert store.get(mine, "pw") is None
    # erasure: the user's items are gone, for good
    memory.erase_user(user_id)
    assert store.get(mine, "home") is None
    assert store.search(mine) == []
