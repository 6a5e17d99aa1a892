"""CrewAI's own Crew.kickoff, with a scripted BaseLLM and HmemCrewMemory as the crew's
memory, over hmem on a real Neo4j: embedded and over HTTP (AsyncClient)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

# CrewAI's telemetry and tracing would try the network (this machine is offline)
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

import warnings

import pytest
from neo4j import Driver
from pydantic import Field

from hmem import AsyncClient, Client, Config, Memory, PolicyRefusal

with warnings.catch_warnings():
    # crewai 1.15's lazy package (crewai.rag) warns on import of its own child module
    warnings.simplefilter("ignore", ImportWarning)
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM

    from hmem.faces.adapters._crewai_storage import RECORD
    from hmem.faces.adapters.crewai import HmemCrewMemory, hmem_tools
from hmem.models import Fact
from tests.adapters import _session_story as story
from tests.fakes.openai_server import FakeOpenAIServer

# CrewAI 1.15 reads its own deprecated fields inside kickoff (function_calling_llm,
# allow_code_execution): its warnings, not hmem's
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class ScriptedLLM(BaseLLM):
    """Answers every call with a final answer and keeps the prompts it was sent."""

    model: str = "scripted"
    answer: str = "Noted."
    prompts: list[str] = Field(default_factory=list)

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        if isinstance(messages, str):
            self.prompts.append(messages)
        else:
            self.prompts.append("\n".join(str(m.get("content", "")) for m in messages))
        return f"Thought: I can answer.\nFinal Answer: {self.answer}"

    def supports_function_calling(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 100_000


def kickoff(memory: HmemCrewMemory, llm: ScriptedLLM, message: str) -> str:
    agent = Agent(role="assistant", goal="help the user", backstory="a helpful assistant", llm=llm)
    task = Task(
        description="The user says: {message}",
        expected_output="a short reply to the user",
        agent=agent,
    )
    crew = Crew(agents=[agent], tasks=[task], memory=memory)
    return str(crew.kickoff(inputs={"message": message}))


def tell_the_story(
    backends: Callable[[], Any], user: str, other: str, fake: FakeOpenAIServer
) -> None:
    story.script_extractor(fake)
    memory = HmemCrewMemory(backend=backends(), user_id=user)
    try:
        kickoff(memory, ScriptedLLM(model="scripted"), story.EARLIER)
        kickoff(memory, ScriptedLLM(model="scripted"), story.MOVED)
        prompts = story.extractor_prompts(fake)
        assert len(prompts) == 2 and story.MOVED in prompts[1]

        fake.queue_chat({"facts": []})  # the question is a turn the crew saves too
        llm = ScriptedLLM(model="scripted", answer="Before Paris you lived in London.")
        assert kickoff(memory, llm, story.QUESTION) == "Before Paris you lived in London."
        # CrewAI put the recalled facts in the task prompt, with their dates
        assert "Relevant memories" in llm.prompts[0]
        story.assert_story(llm.prompts[0])
    finally:
        memory.close()

    stranger_memory = HmemCrewMemory(backend=backends(), user_id=other)
    try:
        fake.queue_chat({"facts": []})
        stranger = ScriptedLLM(model="scripted")
        kickoff(stranger_memory, stranger, story.QUESTION)
        assert "London" not in stranger.prompts[0] and "Paris" not in stranger.prompts[0]
        # only the stranger's own record (its question, kept as CrewAI handed it in)
        found = [m.record.content for m in stranger_memory.recall("London Paris")]
        assert not any("London" in c or "Paris" in c for c in found), found
        assert all(story.QUESTION in c for c in found), found
    finally:
        stranger_memory.close()


def extracted(facts: list[Fact]) -> list[str]:
    """The extractor's facts, not the records beside them."""
    return [f.text for f in facts if not f.source.startswith(RECORD)]


def test_crew_story_embedded(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    """With a model, the extractor's facts (London closed by Paris) come beside the
    records CrewAI handed in (its after-task texts, kept as given), not instead."""
    tell_the_story(lambda: mem, user_id, other_user, fake_openai)
    facts = mem.facts(user_id=user_id)
    assert extracted(facts) == [story.PARIS_FACT]
    records = [f.text for f in facts if f.source.startswith(RECORD)]
    assert any(story.EARLIER in r and r.startswith("Task: ") for r in records)
    assert any(story.MOVED in r for r in records)
    assert not Path("lancedb").exists()  # CrewAI's default store never came into play


def test_crew_story_over_http(
    config: Config,
    driver: Driver,
    memory: Memory,
    fake_openai: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    with story.api(config, driver, memory, fake_openai, tmp_path) as (server, tenant):
        user, other = tenant.user("maya"), tenant.user("sam")
        # an AsyncClient per memory: it runs on the memory's loop, closed with it
        tell_the_story(
            lambda: AsyncClient(server.url, api_key=tenant.key), user, other, fake_openai
        )
        with Client(server.url, api_key=tenant.key) as sync:
            assert extracted(sync.facts(user_id=user)) == [story.PARIS_FACT]


def test_update_supersedes_forget_and_reset_close(mem: Memory, user_id: str) -> None:
    memory = HmemCrewMemory(backend=mem, user_id=user_id, extract=False)
    try:
        record = memory.remember("I work at Acme.")
        assert record is not None and record.id
        memory.update(record.id, content="I work at Apex Labs.")
        [newer] = memory.list_records()
        assert newer.content == "I work at Apex Labs." and newer.id != record.id
        [step] = mem.history(newer.id, user_id=user_id).predecessors
        assert step.fact.id == record.id  # the old record kept as history
        assert memory.hmem_storage.get_record(record.id) == newer  # the old id finds it
        [match] = memory.recall("Apex Labs", limit=5)
        assert match.record.content == "I work at Apex Labs."  # as given
        assert memory.forget(record_ids=[newer.id]) == 1
        assert mem.facts(user_id=user_id) == [] and memory.list_records() == []
        assert mem.restore(newer.id, user_id=user_id).is_open  # closed, not erased
        memory.remember("Team note", scope="/team")
        assert memory.forget(scope="/team") == 1
        assert [r.id for r in memory.list_records()] == [newer.id]
        memory.reset()
        assert memory.list_records() == []
        assert len(mem.facts(user_id=user_id, include_closed=True)) == 3  # all restorable
    finally:
        memory.close()


def test_read_only_update_writes_nothing(mem: Memory, user_id: str) -> None:
    """Defect 6 of issue 46: update() wrote on a read_only memory."""
    memory = HmemCrewMemory(backend=mem, user_id=user_id, extract=False)
    try:
        record = memory.remember("original", scope="/a", importance=0.5)
        assert record is not None
        memory.read_only = True
        returned = memory.update(record.id, content="rewritten", importance=0.9)
        assert (returned.content, returned.importance) == ("original", 0.5)
        assert [f.text for f in mem.facts(user_id=user_id, include_closed=True)] == ["original"]
        assert memory.remember("more") is None and memory.remember_many(["more"]) == []
        assert [r.content for r in memory.list_records()] == ["original"]
    finally:
        memory.close()


def test_long_attributes_are_kept_in_full(mem: Memory, user_id: str) -> None:
    """Metadata beyond what a fact's source holds (200 characters) is kept in full
    (as JSON in the fact's text) and the record comes back exactly as given."""
    memory = HmemCrewMemory(backend=mem, user_id=user_id, extract=False)
    try:
        record = memory.remember(
            "The billing service moves to PostgreSQL.",
            scope="/project/billing",
            metadata={"minutes": "m" * 400, "attendees": ["ana", "bo"]},
            source="architect",
        )
        assert record is not None
        [stored] = memory.list_records()
        assert stored.model_dump(exclude={"last_accessed", "created_at"}) == record.model_dump(
            exclude={"last_accessed", "created_at"}
        )
        [match] = memory.recall("billing PostgreSQL", scope="/project", limit=3)
        assert match.record.content == record.content
        assert match.record.metadata == record.metadata
    finally:
        memory.close()


def test_records_come_back_as_given(mem: Memory, user_id: str, other_user: str) -> None:
    memory = HmemCrewMemory(backend=mem, user_id=user_id, extract=False)
    stranger = HmemCrewMemory(backend=mem, user_id=other_user, extract=False)
    try:
        record = memory.remember(
            "We decided to use PostgreSQL for billing.",
            scope="/project/billing",
            categories=["decision", "database"],
            metadata={"ticket": "BIL-12", "votes": 3},
            importance=0.75,
            source="architect",
        )
        assert record is not None
        [stored] = memory.list_records()
        assert stored.model_dump(exclude={"last_accessed", "created_at"}) == record.model_dump(
            exclude={"last_accessed", "created_at"}
        )
        assert memory.list_scopes("/") == ["/project"]
        assert memory.list_scopes("/project") == ["/project/billing"]
        info = memory.info("/project")
        assert info.record_count == 1 and info.categories == ["database", "decision"]
        assert memory.list_categories() == {"decision": 1, "database": 1}
        [match] = memory.recall("PostgreSQL billing", scope="/project", limit=3)
        assert match.record.content == record.content and match.record.scope == record.scope
        assert memory.recall("PostgreSQL billing", scope="/other") == []
        # tenant isolation: another user's memory over the same hmem sees none of it
        assert stranger.list_records() == [] and stranger.recall("PostgreSQL billing") == []
        mem.erase_user(user_id)  # erasure: nothing left for CrewAI to list or recall
        assert memory.list_records() == [] and memory.recall("PostgreSQL billing") == []
    finally:
        memory.close()
        stranger.close()


def test_private_records_follow_crewai_rule(mem: Memory, user_id: str) -> None:
    memory = HmemCrewMemory(backend=mem, user_id=user_id, extract=False)
    try:
        memory.remember("worker notes about the Zephyr launch", private=True, source="w1")
        memory.remember("team notes about the Zephyr launch")
        seen = [m.record.content for m in memory.recall("Zephyr launch notes")]
        assert seen == ["team notes about the Zephyr launch"]
        as_owner = {m.record.content for m in memory.recall("Zephyr launch notes", source="w1")}
        assert "worker notes about the Zephyr launch" in as_owner
        everything = memory.recall("Zephyr launch notes", include_private=True)
        assert len(everything) == 2
    finally:
        memory.close()


def test_write_policy_refuses_a_secret(mem: Memory, user_id: str) -> None:
    memory = HmemCrewMemory(backend=mem, user_id=user_id, extract=False)
    try:
        with pytest.raises(PolicyRefusal):
            memory.remember("My password is hunter2-Blue-77!")
        assert memory.list_records() == [] and mem.facts(user_id=user_id) == []
    finally:
        memory.close()


def test_tools_read_the_user_from_config(mem: Memory, user_id: str, other_user: str) -> None:
    recall, remember = hmem_tools(mem, user_id=user_id)
    assert "Remembered as" in remember.run(text="The user keeps bees.")
    assert "keeps bees" in recall.run(query="bees")
    assert "id" not in recall.args_schema.model_fields  # no user argument for a model
    assert "user_id" not in remember.args_schema.model_fields
    stranger_recall, _ = hmem_tools(mem, user_id=other_user)
    assert "keeps bees" not in stranger_recall.run(query="bees")
