"""Google ADK's own Runner, LlmAgent, preload_memory / load_memory tools and service
registry, with a scripted BaseLlm, over hmem on a real Neo4j: embedded and over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from datetime import timedelta
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
from google.adk.sessions import InMemorySessionService
from google.adk.tools import load_memory, preload_memory
from google.genai import types
from neo4j import Driver
from pydantic import Field

from hmem import AsyncClient, Config, Memory
from hmem.faces.adapters.google_adk import HmemMemoryService
from tests.adapters import _session_story as story
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.test_api_fixtures import fresh_tenant, live_server

APP = "travel"
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
    assert story.MOVED not in prompts[2] and "that's all" in prompts[2]

    second = await new_session(runner, user)
    llm.script = [call("load_memory", query="London"), say("Before Paris: London.")]
    fake.queue_chat({"facts": []})  # the question itself is a turn the service sends
    answer = await turn(runner, user, second, story.QUESTION)
    assert answer == "Before Paris: London."
    # preload_memory put the recalled facts in the first request, with their dates...
    story.assert_story(llm.last_input(-2))
    assert "<PAST_CONVERSATIONS>" in llm.last_input(-2)
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


def test_runner_story_embedded(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    service = HmemMemoryService(mem)
    asyncio.run(tell_the_story(service, user_id, other_user, fake_openai))
    london = next(f for f in mem.facts(user_id=user_id, include_closed=True) if f.valid_to)
    assert london.text == story.LONDON_FACT and london.source != ""
    assert [f.text for f in mem.facts(user_id=user_id)] == [story.PARIS_FACT]


def test_runner_story_over_http(
    config: Config,
    driver: Driver,
    memory: Memory,
    fake_openai: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    story.over_http(
        config,
        driver,
        memory,
        fake_openai,
        tmp_path,
        lambda c, u, o: tell_the_story(HmemMemoryService(c), u, o, fake_openai),
    )


def test_load_memory_tool_reaches_search(mem: Memory, user_id: str) -> None:
    mem.remember("The user keeps bees.", user_id=user_id)
    llm = ScriptedLlm(script=[call("load_memory", query="bees"), say("You keep bees.")])
    runner = runner_for(HmemMemoryService(mem, extract=False), llm)

    async def run() -> None:
        await turn(runner, user_id, await new_session(runner, user_id), "What do I do?")

    asyncio.run(run())
    tool_result = llm.last_input()  # the request after the tool call
    assert "The user keeps bees" in tool_result and "since " in tool_result


def test_model_free_stores_the_users_turns(config: Config, driver: Driver, user_id: str) -> None:
    """No language model in hmem: the user's words are stored as said, dated the day
    they were said; the assistant's are not. The move's own date ("last month") needs
    the extractor (or plain-text inference, not in this branch), and with no embedder
    either, the question must share a word or a name with what was said."""
    memory = Memory(config, driver=driver)
    service = HmemMemoryService(memory)
    llm = ScriptedLlm(script=[say("Paris, how lovely!")])
    runner = runner_for(service, llm)

    async def run() -> None:
        await turn(runner, user_id, await new_session(runner, user_id), story.MOVED)
        await turn(runner, user_id, await new_session(runner, user_id), "Before Paris?")

    asyncio.run(run())
    assert service.writer.extract is False  # asked once, then model-free
    stored = {f.text: f for f in memory.facts(user_id=user_id)}
    assert set(stored) == {story.MOVED}  # not the question, not "Paris, how lovely!"
    seen = llm.last_input()
    assert "<PAST_CONVERSATIONS>" in seen
    told = stored[story.MOVED].valid_from
    # "last month" with the month it meant beside it (the context block, issue 49 item 11)
    said = stored[story.MOVED].known_from  # "last month" as said that day
    meant = said.replace(day=1) - timedelta(days=1)
    assert f"London to Paris last month [{meant:%Y-%m}] (since {told:%Y-%m-%d})" in seen


def test_add_memory_delete_memory_close(mem: Memory, user_id: str) -> None:
    service = HmemMemoryService(mem)

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


def test_a_user_id_hmem_refuses_is_an_error(mem: Memory) -> None:
    service = HmemMemoryService(mem)
    with pytest.raises(Exception, match="user"):
        asyncio.run(service.search_memory(app_name=APP, user_id="a/b", query="x"))
    scoped = HmemMemoryService(mem, user_of=lambda app, user: f"{app}.{user}")
    assert scoped._user(APP, "maya") == "travel.maya"


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
                service = HmemMemoryService(client)
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
