"""A LangGraph agent whose long-term memory is hmem (``HmemStore``).

    pip install '.[langgraph]'       # from the checkout (hmem is not on PyPI yet)
    make demo                        # or HMEM_API_URL / HMEM_API_KEY for a running API
    python examples/langgraph/agent.py

With no OPENAI_API_KEY a scripted model plays the agent (it saves what the user says and
answers from memory); with one, gpt-4o-mini does (langchain-openai). At the end it
prints the user it wrote and where to look at what it remembered. To see it in the
inspector, run it through the demo's API (its user is then of tenant ``demo``):

    HMEM_API_URL=http://127.0.0.1:8000 HMEM_API_KEY=$(cat .hmem/neo4j/demo-api-key) \
        python examples/langgraph/agent.py
"""

from __future__ import annotations

import os
import uuid
from typing import Annotated, Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.config import get_store
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedStore, ToolNode, tools_condition
from langgraph.store.base import BaseStore

from hmem import Client, Memory
from hmem.demo import where_to_look
from hmem.faces.adapters.langgraph import HmemStore


def backend() -> Client | Memory:
    """The HTTP API when HMEM_API_URL is set (key in HMEM_API_KEY), else an embedded
    Memory on the local Neo4j (`hmem neo4j start`)."""
    if os.environ.get("HMEM_API_URL"):
        return Client(os.environ["HMEM_API_URL"], api_key=os.environ["HMEM_API_KEY"])
    return Memory()  # sets hmem's schema up on first use


@tool
def save_memory(key: str, content: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Save or update one memory about the user under a short key (e.g. "home")."""
    store.put(("memories",), key, {"content": content})  # the user: langgraph_user_id
    return f"saved {key}"


def model() -> Any:
    if os.environ.get("OPENAI_API_KEY"):
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model="gpt-4o-mini").bind_tools([save_memory])
    call = {
        "name": "save_memory",
        "id": uuid.uuid4().hex,
        "args": {"key": "home", "content": "The user lives in Paris, after London."},
    }
    return GenericFakeChatModel(messages=iter([
        AIMessage("", tool_calls=[call]), AIMessage("Noted."), AIMessage("In London."),
    ]))  # fmt: skip


def build() -> Any:
    llm = model()

    def recall(state: MessagesState) -> dict[str, Any]:
        question = str(state["messages"][-1].content)
        items = get_store().search(("memories",), query=question, filter={"include_replaced": True})
        lines = "\n".join(HmemStore.describe(i) for i in items) or "(nothing yet)"
        return {"messages": [HumanMessage(f"What you remember about the user:\n{lines}")]}

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [llm.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("recall", recall)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([save_memory]))
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(store=HmemStore(backend()))


if __name__ == "__main__":
    app = build()
    user = f"example-{uuid.uuid4().hex[:8]}"
    config = {"configurable": {"langgraph_user_id": user}}
    for said in ("I moved from London to Paris last month.", "Where did I live before Paris?"):
        out = app.invoke({"messages": [HumanMessage(said)]}, config)
        print(f"user:  {said}\nagent: {out['messages'][-1].content}")
    print(where_to_look([user], api_url=os.environ.get("HMEM_API_URL")))
