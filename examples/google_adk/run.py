"""Two ADK sessions for one user and one for another, with hmem as the memory service.

    python examples/google_adk/run.py

hmem is the API at HMEM_API_URL (with HMEM_API_KEY) when set, else an embedded
Memory on the Neo4j that HMEM_NEO4J_* describe (`hmem neo4j start` gives one). With
HMEM_LLM_* set hmem's extractor infers dates and changes ("last month", "moved");
without, the user's turns are stored as said."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path

from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

import hmem
from hmem.demo import where_to_look
from hmem.faces.adapters.google_adk import HmemMemoryService

sys.path.insert(0, str(Path(__file__).parent))
from travel.agent import root_agent


def backend() -> hmem.Memory | hmem.AsyncClient:
    if url := os.environ.get("HMEM_API_URL"):
        return hmem.AsyncClient(url, api_key=os.environ["HMEM_API_KEY"])
    memory = hmem.Memory()
    memory.init_schema()
    return memory


async def say(runner: Runner, user: str, session: str, text: str) -> None:
    print(f"{user}> {text}")
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for event in runner.run_async(user_id=user, session_id=session, new_message=message):
        for part in (event.content.parts or []) if event.content else []:
            if part.text:
                print(f"agent> {part.text}")


async def main() -> None:
    store = backend()
    service = HmemMemoryService(store)
    sessions = InMemorySessionService()
    runner = Runner(
        agent=root_agent, app_name="travel", session_service=sessions, memory_service=service
    )
    maya, sam = f"maya-{uuid.uuid4().hex[:6]}", f"sam-{uuid.uuid4().hex[:6]}"
    for user, text in [
        (maya, "I moved from London to Paris last month."),
        (maya, "Where did I live before Paris?"),
        (sam, "Where did I live before Paris?"),
    ]:
        session = await sessions.create_session(app_name="travel", user_id=user)
        await say(runner, user, session.id, text)
    await service.close()  # closes only what the service built: the store is ours
    if isinstance(store, hmem.AsyncClient):
        await store.shutdown()
    else:
        store.shutdown()
    print(where_to_look([maya, sam], api_url=os.environ.get("HMEM_API_URL")))


if __name__ == "__main__":
    asyncio.run(main())
