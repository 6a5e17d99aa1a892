"""A CrewAI crew whose memory is hmem: two crews for one user, one for another.

    python examples/crewai/crew.py

hmem is the API at HMEM_API_URL (with HMEM_API_KEY) when set, else an embedded Memory
on the Neo4j that HMEM_NEO4J_* describe (`hmem neo4j start`). With HMEM_LLM_* set,
hmem's extractor infers dates and changes; without, the user's words are stored as
said. The crew's model is OPENAI_MODEL (default gpt-4o-mini) when OPENAI_API_KEY is
set, else a scripted stand-in that echoes the memories CrewAI put in its prompt.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM

import hmem
from hmem.demo import where_to_look
from hmem.faces.adapters.crewai import HmemCrewMemory


class EchoMemoryLLM(BaseLLM):
    """No key: answers with the "Relevant memories" lines CrewAI showed it."""

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        if isinstance(messages, str):
            text = messages
        else:
            text = "\n".join(str(m.get("content", "")) for m in messages)
        memories = text.split("Relevant memories:")[-1] if "Relevant memories:" in text else ""
        lines = [line for line in memories.split("\n") if line.startswith("- (score")]
        return "Final Answer: " + (" | ".join(lines) if lines else "Noted.")


def llm() -> BaseLLM | str:
    if os.environ.get("OPENAI_API_KEY"):
        return os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    return EchoMemoryLLM(model="echo-memory")


def backend() -> hmem.Memory | hmem.Client:
    if url := os.environ.get("HMEM_API_URL"):
        return hmem.Client(url, api_key=os.environ["HMEM_API_KEY"])
    memory = hmem.Memory()
    memory.init_schema()
    return memory


def ask(store: hmem.Memory | hmem.Client, user: str, message: str) -> None:
    memory = HmemCrewMemory(backend=store, user_id=user)
    agent = Agent(role="assistant", goal="help the user", backstory="a travel helper", llm=llm())
    task = Task(
        description="The user says: {message}", expected_output="a short reply", agent=agent
    )
    print(f"{user}> {message}")
    crew = Crew(agents=[agent], tasks=[task], memory=memory)
    print(f"crew> {crew.kickoff(inputs={'message': message})}")
    memory.close()


if __name__ == "__main__":
    store = backend()
    maya, sam = f"maya-{uuid.uuid4().hex[:6]}", f"sam-{uuid.uuid4().hex[:6]}"
    ask(store, maya, "I moved from London to Paris last month.")
    ask(store, maya, "Where did I live before Paris?")
    ask(store, sam, "Where did I live before Paris?")
    print(where_to_look([maya, sam], api_url=os.environ.get("HMEM_API_URL")))
