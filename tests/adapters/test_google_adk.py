"""Google ADK's own Runner, LlmAgent, preload_memory / load_memory tools and service
registry, with a scripted BaseLlm, over hmem on a real Neo4j: embedded and over HTTP."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncGenerator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.cli.service_registry import load_services_module
from google.adk.cli.utils.service_factory import create_memory_service_from_options
from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.models._capabilities import LlmCapabilities
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService, Session
from google.adk.tools import load_memory, preload_memory
from google.genai import types
from neo4j import Driver
from pydantic import Field

from hmem import AsyncClient, Config, Memory
from hmem.faces.adapters.google_adk import EVENT_SOURCE, HmemMemoryService, by_app, user_name
from hmem.models import Fact
from tests.adapters import _session_story as story
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.test_api_fixtures import fresh_tenant, live_server

APP = "travel"
SLOW_CI = 120  # recall_timeout: a search on a loaded CI runner may take seconds
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "google_adk"


class ScriptedLlm(BaseLlm):
    """Answers from a script and keeps every request it was sent."""

    model: str = "scripted"
    script: list[LlmResponse] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    @property
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=False)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request.model_copy(deep=True))
        yield self.script.pop(0) if self.script else say("Noted.")

    def last_input(self, index: int = -1) -> str:
        """Everything a request (the last) showed the model: instructions and contents."""
        request = self.requests[index]
        texts = [str(request.config.system_instruction or "")]
        for content in request.contents:
            for part in content.parts or []:
                texts.append(part.text or "")
                if part.function_response is not None:
                    texts.append(str(part.function_response.response))
        return "\n".join(texts)


def say(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def call(name: str, **args: Any) -> LlmResponse:
    part = types.Part(function_call=types.FunctionCall(name=name, args=args))
    return LlmResponse(content=types.Content(role="model", parts=[part]))


async def remember_session(callback_context: CallbackContext) -> None:
    # ADK's recommended hook: the whole session, every turn (the service sends the delta)
    await callback_context.add_session_to_memory()


def runner_for(service: HmemMemoryService, llm: ScriptedLlm) -> Runner:
    agent = LlmAgent(
        name="assistant",
        model=llm,
        instruction="Answer from what you remember about the user.",
        tools=[preload_memory, load_memory],
        after_agent_callback=remember_session,
    )
    return Runner(
        agent=agent,
        app_name=APP,
        session_service=InMemorySessionService(),
        memory_service=service,
    )


async def turn(runner: Runner, user: str, session_id: str, text: str) -> str:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    replies = []
    async for event in runner.run_async(user_id=user, session_id=session_id, new_message=message):
        if event.content and event.content.parts:
            replies += [p.text for p in event.content.parts if p.text]
    return " ".join(replies)


async def new_session(runner: Runner, user: str) -> str:
    session = await runner.session_service.create_session(app_name=APP, user_id=user)
    return session.id


async def tell_the_story(
    service: HmemMemoryService, user: str, other: str, fake: FakeOpenAIServer
) -> None:
    story.script_extractor(fake)
    llm = ScriptedLlm()
    runner = runner_for(service, llm)

    earlier = await new_session(runner, user)
    await turn(runner, user, earlier, story.EARLIER)
    first = await new_session(runner, user)
    await turn(runner, user, first, story.MOVED)
    # a second turn in the same session: ADK sends the whole session again
    fake.queue_chat({"facts": []})
    await turn(runner, user, first, "Thanks, that's all for now.")
    prompts = story.extractor_prompts(fake)
    assert len(prompts) == 3  # one extractor call per turn, none for a re-sent turn
    said = prompts[2].split("USER'S MESSAGES:")[-1]  # the verbatim events are known facts
    assert story.MOVED not in said and "that's all" in said

    second = await new_session(runner, user)
    llm.script = [call("load_memory", query="London"), say("Before Paris: London.")]
    fake.queue_chat({"facts": []})  # the question itself is a turn the service sends
    answer = await turn(runner, user, second, story.QUESTION)
    assert answer == "Before Paris: London."
    # preload_memory put what the user said before in the first request, verbatim...
    preloaded = llm.last_input(-2)
    assert "<PAST_CONVERSATIONS>" in preloaded
    assert story.EARLIER in preloaded and story.MOVED in preloaded
    # ...and the model's load_memory call reached search_memory for this user
    [tool_result] = [
        p.function_response
        for c in llm.requests[-1].contents
        for p in c.parts or []
        if p.function_response is not None
    ]
    assert tool_result.name == "load_memory"
    story.assert_story(str(tool_result.response))

    # another user of the same app asks the same: nothing of the first user's
    stranger = ScriptedLlm()
    other_runner = runner_for(service, stranger)
    fake.queue_chat({"facts": []})
    await turn(other_runner, other, await new_session(other_runner, other), story.QUESTION)
    seen = stranger.last_input()
    assert "London" not in seen and "Paris" not in seen
    empty = await service.search_memory(app_name=APP, user_id=other, query="London Paris")
    assert empty.memories == []


def extracted(facts: list[Fact]) -> list[str]:
    """The extractor's facts, not the verbatim events beside them."""
    return [f.text for f in facts if not f.source.startswith(EVENT_SOURCE)]


def test_runner_story_embedded(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    service = HmemMemoryService(mem, recall_timeout=SLOW_CI)
    asyncio.run(tell_the_story(service, user_id, other_user, fake_openai))
    london = next(f for f in mem.facts(user_id=user_id, include_closed=True) if f.valid_to)
    assert london.text == story.LONDON_FACT and london.source != ""
    assert extracted(mem.facts(user_id=user_id)) == [story.PARIS_FACT]
    # every text event is kept verbatim beside the facts, with its author
    said = {
        f.text: f.speaker for f in mem.facts(user_id=user_id) if f.source.startswith(EVENT_SOURCE)
    }
    assert said[story.EARLIER] == "user" and said[story.MOVED] == "user"
    assert said["Before Paris: London."] == "assistant"


def test_runner_story_over_http(
    config: Config,
    driver: Driver,
    memory: Memory,
    fake_openai: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    with story.api(config, driver, memory, fake_openai, tmp_path) as (server, tenant):
        user, other = tenant.user("maya"), tenant.user("sam")

        async def run() -> None:
            async with AsyncClient(server.url, api_key=tenant.key) as client:
                await tell_the_story(
                    HmemMemoryService(client, recall_timeout=SLOW_CI), user, other, fake_openai
                )
                assert extracted(await client.facts(user_id=user)) == [story.PARIS_FACT]

        asyncio.run(run())


def test_load_memory_tool_reaches_search(mem: Memory, user_id: str) -> None:
    mem.remember("The user keeps bees.", user_id=user_id)
    llm = ScriptedLlm(script=[call("load_memory", query="bees"), say("You keep bees.")])
    runner = runner_for(HmemMemoryService(mem, recall_timeout=SLOW_CI, extract=False), llm)

    async def run() -> None:
        await turn(runner, user_id, await new_session(runner, user_id), "What do I do?")

    asyncio.run(run())
    tool_result = llm.last_input()  # the request after the tool call
    assert "The user keeps bees" in tool_result and "since " in tool_result


def test_model_free_keeps_every_event_verbatim(
    config: Config, driver: Driver, user_id: str
) -> None:
    """No language model in hmem: every text event is stored as said, with its author;
    preload_memory shows the ones that share a word with the new question."""
    memory = Memory(config, driver=driver)
    service = HmemMemoryService(memory, recall_timeout=SLOW_CI)
    llm = ScriptedLlm(script=[say("Paris, how lovely!")])
    runner = runner_for(service, llm)

    async def run() -> None:
        await turn(runner, user_id, await new_session(runner, user_id), story.MOVED)
        await turn(runner, user_id, await new_session(runner, user_id), "Before Paris?")

    asyncio.run(run())
    assert service.writer.extract is False  # asked once, then model-free
    stored = {f.text: f.speaker for f in memory.facts(user_id=user_id)}
    assert stored == {
        story.MOVED: "user",
        "Paris, how lovely!": "assistant",
        "Before Paris?": "user",
        "Noted.": "assistant",
    }
    seen = llm.last_input()
    assert "<PAST_CONVERSATIONS>" in seen
    assert f"user: {story.MOVED}" in seen and "assistant: Paris, how lovely!" in seen


def test_add_memory_delete_memory_close(mem: Memory, user_id: str) -> None:
    service = HmemMemoryService(mem, recall_timeout=SLOW_CI)

    async def run() -> None:
        await service.add_memory(
            app_name=APP,
            user_id=user_id,
            memories=[
                MemoryEntry(
                    content=types.Content(parts=[types.Part(text="The user lives in Lyon.")]),
                    custom_metadata={"valid_from": "2025-02-01T00:00:00Z"},
                )
            ],
        )
        found = await service.search_memory(app_name=APP, user_id=user_id, query="Lyon")
        [entry] = found.memories
        assert entry.timestamp is not None and entry.timestamp.startswith("2025-02-01")
        assert entry.id is not None
        await service.delete_memory(app_name=APP, user_id=user_id, memory_id=entry.id)
        after = await service.search_memory(app_name=APP, user_id=user_id, query="Lyon")
        assert after.memories == []
        with pytest.raises(ValueError, match="memory_id"):
            await service.delete_memory(app_name=APP, user_id=user_id)

    asyncio.run(run())
    [closed] = mem.facts(user_id=user_id, include_closed=True)
    assert closed.close_reason == "retraction" and not closed.is_open
    assert mem.facts(user_id=user_id) == []
    assert mem.restore(closed.id, user_id=user_id).is_open  # restorable, not erased


def test_add_memory_entries_come_back_as_given(mem: Memory, user_id: str) -> None:
    """An add_memory entry's text, id, author, role, timestamp and custom_metadata come
    back as given (hmem's reading beside, under its own keys); metadata beyond what
    hmem keeps with a fact is refused before anything is written."""
    service = HmemMemoryService(mem, recall_timeout=SLOW_CI)
    given = MemoryEntry(
        id="m-1",
        author="travel-agent",
        timestamp="2025-02-01T10:00:00",
        content=types.Content(role="model", parts=[types.Part(text="Maya's flat is in Lyon.")]),
        custom_metadata={"topic": "home", "tags": ["flat", 2], "valid_from": "2025-02-01T00:00Z"},
    )
    too_much = MemoryEntry(
        content=types.Content(parts=[types.Part(text="Maya likes long notes.")]),
        custom_metadata={"note": "x" * 200},
    )

    async def run() -> None:
        await service.add_memory(app_name=APP, user_id=user_id, memories=[given])
        found = await service.search_memory(app_name=APP, user_id=user_id, query="Lyon")
        [entry] = found.memories
        assert (entry.id, entry.author, entry.timestamp) == (
            "m-1",
            "travel-agent",
            "2025-02-01T10:00:00",
        )
        assert entry.content == given.content
        assert {k: entry.custom_metadata[k] for k in given.custom_metadata} == given.custom_metadata
        assert entry.custom_metadata["hmem_fact_id"]  # hmem's reading, beside
        with pytest.raises(ValueError, match="nothing was stored"):
            await service.add_memory(app_name=APP, user_id=user_id, memories=[given, too_much])

    asyncio.run(run())
    [fact] = mem.facts(user_id=user_id)
    assert fact.text == "Maya's flat is in Lyon." and fact.valid_from.year == 2025


def event(
    text: str, *, author: str = "user", event_id: str | None = None, ts: float = 1.0e9
) -> Event:
    return Event(
        id=event_id or Event.new_id(),
        author=author,
        timestamp=ts,
        content=types.Content(
            role="user" if author == "user" else "model", parts=[types.Part(text=text)]
        ),
    )


def session_of(user: str, *events: Event, app: str = APP, session_id: str = "s1") -> Session:
    return Session(app_name=app, user_id=user, id=session_id, events=list(events))


def test_any_user_id_is_mapped_one_to_one(memory: Memory) -> None:
    """Issue 46's defect 4: ``user:42`` or ``other-user/user`` raised ValidationError
    from add_session_to_memory. Any id now maps deterministically (documented in the
    module), ids hmem takes as they are stay as they are, and no two ids share a user."""
    assert user_name("maya") == "maya" and user_name("maya@example.com") == "maya@example.com"
    assert user_name("user:42") == "adk_user_3a42"
    assert user_name("other-user/user") == "adk_other-user_2fuser"
    assert user_name("a_b") == "adk_a_5fb" != user_name("a:b")
    assert user_name("adk_user_3a42") != user_name("user:42")
    assert len(user_name("x:" * 200)) <= 128
    assert user_name("x:" * 200) != user_name("x:" * 199 + "y:")
    assert by_app("app/other-user", "user") != by_app("app", "other-user/user")
    service = HmemMemoryService(memory, recall_timeout=SLOW_CI, extract=False)
    run = uuid.uuid4().hex[:8]
    ids = [f"user:{run}", f"other-user/{run}", f"über {run}"]

    async def run_all() -> None:
        for uid in ids:
            await service.add_session_to_memory(
                session_of(uid, event(f"I am {uid} and I like tea."))
            )
        for uid in ids:
            found = await service.search_memory(app_name=APP, user_id=uid, query="tea")
            assert [m.content.parts[0].text for m in found.memories] == [
                f"I am {uid} and I like tea."
            ]

    try:
        asyncio.run(run_all())
    finally:
        for uid in ids:
            memory.erase_user(user_name(uid))


def test_app_scoping(memory: Memory, user_id: str) -> None:
    scoped = HmemMemoryService(memory, recall_timeout=SLOW_CI, extract=False, scope_by_app=True)

    async def run() -> None:
        await scoped.add_session_to_memory(session_of(user_id, event("I keep bees."), app="farm"))
        farm = await scoped.search_memory(app_name="farm", user_id=user_id, query="bees")
        travel = await scoped.search_memory(app_name="travel", user_id=user_id, query="bees")
        assert len(farm.memories) == 1 and travel.memories == []

    try:
        asyncio.run(run())
    finally:
        memory.erase_user(by_app("farm", user_id))


def test_entries_come_back_as_given_with_adks_relevance(memory: Memory, user_id: str) -> None:
    """Raw text, author, role, event id and ADK's timestamp; only entries that share a
    word with the query, most shared first, at most k; nothing for an unrelated query;
    the same event twice is stored once."""
    service = HmemMemoryService(memory, recall_timeout=SLOW_CI, extract=False, k=2)
    events = [
        event("The deploy is ready.", event_id="e1", ts=1_700_000_000.5),
        event("The deploy status is ready.", author="ops_agent", event_id="e2"),
        event("Lunch was great.", event_id="e3"),
    ]

    async def run() -> None:
        await service.add_session_to_memory(session_of(user_id, *events))
        await service.add_session_to_memory(session_of(user_id, *events))  # ADK re-sends
        found = await service.search_memory(app_name=APP, user_id=user_id, query="deploy status")
        first, second = found.memories
        assert first.content.parts[0].text == "The deploy status is ready."
        assert (first.author, first.id, first.content.role) == ("ops_agent", "e2", "model")
        assert (
            second.id == "e1"
            and second.timestamp == datetime.fromtimestamp(1_700_000_000.5).isoformat()
        )
        assert first.custom_metadata["hmem_fact_id"] != "e2"
        none = await service.search_memory(app_name=APP, user_id=user_id, query="quantum physics")
        assert none.memories == []
        await service.delete_memory(app_name=APP, user_id=user_id, memory_id="e1")
        after = await service.search_memory(app_name=APP, user_id=user_id, query="deploy")
        assert [m.id for m in after.memories] == ["e2"]

    asyncio.run(run())
    assert len(memory.facts(user_id=user_id, include_closed=True)) == 3


def test_a_secret_is_refused_and_the_session_goes_on(memory: Memory, user_id: str) -> None:
    service = HmemMemoryService(memory, recall_timeout=SLOW_CI, extract=False)
    secret = "My password is hunter2-Blue-77!"

    async def run() -> None:
        await service.add_session_to_memory(
            session_of(user_id, event(secret), event("I like green tea."))
        )

    asyncio.run(run())
    assert [f.text for f in memory.facts(user_id=user_id)] == ["I like green tea."]


def test_erasure_reaches_the_service(memory: Memory, user_id: str) -> None:
    service = HmemMemoryService(memory, recall_timeout=SLOW_CI, extract=False)

    async def run() -> list[MemoryEntry]:
        await service.add_session_to_memory(session_of(user_id, event("I like green tea.")))
        memory.erase_user(user_id)
        return (await service.search_memory(app_name=APP, user_id=user_id, query="tea")).memories

    assert asyncio.run(run()) == []


def test_close_leaves_a_shared_backend_open(memory: Memory, user_id: str) -> None:
    """ADK's close() shut the Memory it was handed down (as AutoGen's, issue 46 defect
    5): now it closes only a backend it built from a uri."""
    first = HmemMemoryService(memory, recall_timeout=SLOW_CI, extract=False)
    second = HmemMemoryService(memory, recall_timeout=SLOW_CI, extract=False)

    async def run() -> None:
        await first.close()
        await second.add_session_to_memory(session_of(user_id, event("I like green tea.")))
        found = await second.search_memory(app_name=APP, user_id=user_id, query="tea")
        assert len(found.memories) == 1

    asyncio.run(run())


def test_recall_is_time_boxed_and_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    """hmem down (nothing listens) or hanging (a server that never answers): the search
    answers with no memories within recall_timeout and logs why; the turn goes on."""
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    port = silent.getsockname()[1]

    async def run() -> None:
        async with AsyncClient("http://127.0.0.1:9", api_key="hmem_x") as down:
            found = await HmemMemoryService(down).search_memory(
                app_name=APP, user_id="maya", query="tea"
            )
            assert found.memories == []
        async with AsyncClient(f"http://127.0.0.1:{port}", api_key="hmem_x") as hanging:
            service = HmemMemoryService(hanging, recall_timeout=0.5)
            started = time.monotonic()
            found = await service.search_memory(app_name=APP, user_id="maya", query="tea")
            assert found.memories == [] and time.monotonic() - started < 5

    try:
        with caplog.at_level(logging.WARNING):
            asyncio.run(run())
    finally:
        silent.close()
    assert sum("hmem recall failed" in r.message for r in caplog.records) == 2


def test_recall_fails_open_when_neo4j_is_unreachable(
    config: Config, fake_openai: FakeOpenAIServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Embedded hmem whose Neo4j is not there (nothing listens at its address): the
    search answers with no memories and a warning, so the preload_memory tool gives
    the model nothing and the agent's turn goes on. (Writing a session stays loud:
    add_session_to_memory raises StoreUnavailableError, nothing is dropped silently.)"""
    down = story.neo4j_down(config, fake_openai, tmp_path / "q.sqlite3")

    async def run() -> None:
        with Memory(down) as memory:
            service = HmemMemoryService(memory)
            found = await service.search_memory(app_name=APP, user_id="maya", query="tea")
            assert found.memories == []
            llm = ScriptedLlm(script=[say("Noted.")])
            agent = LlmAgent(name="assistant", model=llm, tools=[preload_memory])
            runner = Runner(
                agent=agent,
                app_name=APP,
                session_service=InMemorySessionService(),
                memory_service=service,
            )
            session = await new_session(runner, "maya")
            assert await turn(runner, "maya", session, "What tea do I like?") == "Noted."
            assert "<PAST_CONVERSATIONS>" not in llm.last_input()

    with caplog.at_level(logging.WARNING):
        asyncio.run(run())
    failed = [r.message for r in caplog.records if "hmem recall failed" in r.message]
    assert len(failed) == 2 and all("StoreUnavailableError" in m for m in failed)


def test_services_yaml_gives_adk_an_hmem_uri(monkeypatch: pytest.MonkeyPatch) -> None:
    """ADK's own loader reads the example's services.yaml; --memory_service_uri=hmem://
    then builds the service over an AsyncClient."""
    monkeypatch.setenv("HMEM_API_KEY", "hmem_test_key")
    load_services_module(str(EXAMPLES))
    service = create_memory_service_from_options(
        base_dir=EXAMPLES, memory_service_uri="hmem://127.0.0.1:8765"
    )
    assert isinstance(service, HmemMemoryService)
    assert isinstance(service.port.backend, AsyncClient)
    assert str(service.port.backend._http.base_url) == "http://127.0.0.1:8765"
    secure = create_memory_service_from_options(
        base_dir=EXAMPLES, memory_service_uri="hmems://memory.example.com"
    )
    assert str(secure.port.backend._http.base_url) == "https://memory.example.com"  # type: ignore[attr-defined]
    monkeypatch.delenv("HMEM_API_KEY")
    with pytest.raises(ValueError, match="HMEM_API_KEY"):
        create_memory_service_from_options(base_dir=EXAMPLES, memory_service_uri="hmem://h:1")


def test_register_for_a_services_py(monkeypatch: pytest.MonkeyPatch) -> None:
    """``register("mem")`` (for a services.py): mem:// is HTTP, mems:// HTTPS, and
    ``hmem://`` with no host is an embedded Memory configured by HMEM_*."""
    from google.adk.cli.service_registry import get_service_registry

    from hmem.faces.adapters.google_adk import register

    monkeypatch.setenv("HMEM_API_KEY", "hmem_test_key")
    register("mem")
    registry = get_service_registry()
    plain = registry.create_memory_service("mem://h:8000", agents_dir="x")
    secure = registry.create_memory_service("mems://h", agents_dir="x")
    assert isinstance(plain, HmemMemoryService) and isinstance(secure, HmemMemoryService)
    assert str(plain.port.backend._http.base_url) == "http://h:8000"  # type: ignore[union-attr]
    assert str(secure.port.backend._http.base_url) == "https://h"  # type: ignore[union-attr]
    embedded = HmemMemoryService(uri="hmem://")
    assert isinstance(embedded.port.backend, Memory)
    asyncio.run(embedded.close())


def test_api_without_a_model_falls_back_to_the_users_words(
    config: Config, driver: Driver, memory: Memory, tmp_path: Path
) -> None:
    """Over HTTP, a server with no language model answers add() with
    ModelNotConfiguredError; the service then stores the user's turns as said, once."""
    no_model = config.model_copy(update={"queue_path": tmp_path / "q.sqlite3"})
    with live_server(no_model) as server, fresh_tenant(driver, memory) as tenant:
        user = tenant.user("maya")

        async def run() -> None:
            async with AsyncClient(server.url, api_key=tenant.key) as client:
                service = HmemMemoryService(client, recall_timeout=SLOW_CI)
                said = Event(
                    author="user",
                    content=types.Content(role="user", parts=[types.Part(text=story.MOVED)]),
                )
                for _ in range(2):  # the same delta twice: written once
                    await service.add_events_to_memory(
                        app_name=APP, user_id=user, events=[said], session_id="s1"
                    )
                assert service.writer.extract is False
                assert [f.text for f in await client.facts(user_id=user)] == [story.MOVED]

        asyncio.run(run())
