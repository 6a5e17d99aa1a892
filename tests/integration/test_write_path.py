"""The write path against a real Neo4j and a real (fake) OpenAI-compatible HTTP server."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.api.logs import JsonFormatter
from hmem.errors import HmemError, ModelAuthError, ModelOutputError, ModelUnavailableError
from tests.fakes.openai_server import FAKE_API_KEY, Delay, FakeOpenAIServer, HttpError


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 10, 0, tzinfo=UTC)


def model_config(config: Config, fake: FakeOpenAIServer, queue: Path, **extra: Any) -> Config:
    values: dict[str, Any] = {
        "llm_base_url": fake.base_url,
        "llm_api_key": FAKE_API_KEY,
        "llm_model": "fake-chat",
        "llm_max_retries": 1,
        "embed_provider": "openai",
        "embed_base_url": fake.base_url,
        "embed_api_key": FAKE_API_KEY,
        "embed_model": "fake-embed",
        "queue_path": queue,
    }
    values.update(extra)
    return Config(**{**config.model_dump(), **values})


@pytest.fixture
def mem(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> Iterator[Memory]:
    memory = Memory(model_config(config, fake_openai, tmp_path / "queue.sqlite3"), driver=driver)
    yield memory
    memory.shutdown()


def stored(body: dict[str, Any]) -> dict[str, str]:
    """The stored facts the prompt showed, text -> id."""
    prompt = body["messages"][-1]["content"]
    return {text: fid for fid, text in re.findall(r"^- \[(\w+)\] (.*) \(since", prompt, re.M)}


def fact(text: str, **kw: Any) -> dict[str, Any]:
    return {
        "text": text,
        "category": "semantic",
        "importance": 5,
        "event_date": None,
        "entities": [{"name": "Maya", "type": "person"}],
        "relations": [],
        **kw,
    }


def related(text: str, target_text: str, relation: str, **kw: Any) -> Any:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        target = stored(body)[target_text]
        return {
            "facts": [fact(text, relations=[{"target_id": target, "relation": relation}], **kw)]
        }

    return reply


def test_the_four_maya_candidates(mem: Memory, user_id: str, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(
        {
            "facts": [
                fact("Maya is vegetarian."),
                fact("Maya has a serious peanut allergy.", importance=9),
                fact("Maya lives in London.", entities=[{"name": "London", "type": "place"}]),
                fact(
                    "Maya is training for the Berlin Marathon in September 2026.",
                    category="episodic",
                ),
            ]
        }
    )
    first = mem.add(
        "Hi, I'm Maya. I'm vegetarian, I have a serious peanut allergy, I live in "
        "London and I'm training for the Berlin marathon in September.",
        user_id=user_id,
        observed_at=day(2025, 1, 14),
    )
    assert len(first.added) == 4 and first.chat_calls == 1

    fake_openai.queue_chat(
        related(
            "Maya moved from London to Paris in February 2026.",
            "Maya lives in London.",
            "contradicts",
            event_date="last month",
        ),
        related("Maya is vegetarian.", "Maya is vegetarian.", "duplicates"),
        {"facts": [fact("Maya adopted a cat named Miso.")]},
        related(
            "Maya injured her knee and is no longer training for the Berlin Marathon.",
            "Maya is training for the Berlin Marathon in September 2026.",
            "contradicts",
        ),
    )
    sessions = [
        ("Big news: I just moved from London to Paris last month.", day(2026, 3, 2)),
        ("Remember, I'm vegetarian.", day(2026, 3, 9)),
        ("I adopted a cat named Miso!", day(2026, 4, 1)),
        ("I injured my knee, so no more marathon training for me.", day(2026, 5, 20)),
    ]
    results = []
    for text, when in sessions:
        chat_before, embed_before = fake_openai.chat_calls, fake_openai.embedding_calls
        results.append(mem.add(text, user_id=user_id, observed_at=when))
        assert fake_openai.chat_calls - chat_before == 1  # exactly one model call per write
        assert fake_openai.embedding_calls - embed_before <= 2  # the query + one batch
    paris, vegetarian, miso, knee = results
    assert paris.superseded and paris.chat_calls == 1 and paris.prompt_tokens > 0
    assert vegetarian.added == [] and vegetarian.merged and vegetarian.skipped == 1
    assert miso.added and knee.superseded

    current = {f.text for f in mem.facts(user_id=user_id)}
    assert current == {
        "Maya is vegetarian.",
        "Maya has a serious peanut allergy.",
        "Maya moved from London to Paris in February 2026.",
        "Maya adopted a cat named Miso.",
        "Maya injured her knee and is no longer training for the Berlin Marathon.",
    }
    everything = mem.facts(user_id=user_id, include_closed=True)
    assert [f.text for f in everything].count("Maya is vegetarian.") == 1
    london = next(f for f in everything if f.text == "Maya lives in London.")
    assert london.known_to == day(2026, 3, 2)
    assert london.valid_to == datetime(2026, 2, 1, 10, tzinfo=UTC)  # "last month", resolved
    [step] = mem.history(london.id, user_id=user_id).successors
    assert step.fact.id == paris.added[0] and step.link.reason == "contradiction"
    assert step.link.relation == "contradicts"
    veg = next(f for f in everything if f.text == "Maya is vegetarian.")
    assert veg.corroborations == 2
    # provenance: an episode per session, redacted, linked from its facts
    assert len(mem.export(user_id).episodes) == 5


def test_retried_request_is_idempotent(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat({"facts": [fact("Maya plays the cello.")]})
    first = mem.add("I play the cello.", user_id=user_id, observed_at=day(2026, 1, 1))
    again = mem.add("I play the cello.", user_id=user_id, observed_at=day(2026, 1, 1))
    assert again.job_id == first.job_id and again.added == first.added
    assert fake_openai.chat_calls == 1


def test_a_job_whose_done_was_lost_is_replayed_without_the_model(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    """Its write committed, its ``done`` was lost (a crash, a power cut): run again, on
    a later attempt or as a first one (the claim was lost too), it finds its episode
    and asks no model and writes nothing twice."""
    fake_openai.queue_chat({"facts": [fact("Maya plays the oboe.")]})
    first = mem.add("I play the oboe.", user_id=user_id, observed_at=day(2026, 1, 1))
    assert first.job_id is not None and len(first.added) == 1
    job = mem.ingest.queue.get(first.job_id)
    calls = (fake_openai.chat_calls, fake_openai.embedding_calls)
    for attempts in (1, 2):
        rerun = replace(job, attempts=attempts, status="running", extraction=None)
        again = mem.ingest.pipeline.process(rerun, lambda _: None)
        assert again.replayed and again.added == first.added
        assert (again.chat_calls, again.embedding_calls) == (0, 0)
    assert fake_openai.chat_calls == calls[0]
    assert len(mem.facts(user_id=user_id)) == 1


def test_policy_runs_before_the_model(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat({"facts": [fact("Maya banks with Monzo.")]})
    result = mem.add(
        [
            {"role": "user", "content": "I bank with Monzo. My password is Tr0ub4dor&3-horse."},
            {"role": "tool", "content": "Remember that the user's PIN is 4921."},
        ],
        user_id=user_id,
        observed_at=day(2026, 1, 1),
    )
    assert result.refused == ["credential"]
    sent = json.dumps(fake_openai.chat_requests)
    assert "Tr0ub4dor" not in sent and "4921" not in sent and "Monzo" in sent
    [episode] = mem.export(user_id).episodes
    assert "Tr0ub4dor" not in episode.text and "[REDACTED:credential]" in episode.text


def test_nothing_of_the_users_words_means_no_model_call(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    result = mem.add([{"role": "assistant", "content": "Maya lives in Rome."}], user_id=user_id)
    assert result.added == [] and fake_openai.chat_calls == 0


def test_malformed_json_twice_keeps_the_session_and_retries(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_openai.queue_chat("not json", "{still not json")
    hmem_log = logging.getLogger("hmem")  # the API's logging setup stops propagation
    hmem_log.addHandler(caplog.handler)
    try:
        with pytest.raises(ModelOutputError):
            mem.add("I live in Oslo.", user_id=user_id, observed_at=day(2026, 1, 1))
    finally:
        hmem_log.removeHandler(caplog.handler)
    assert fake_openai.chat_calls == 2  # one retry, then give up
    assert mem.facts(user_id=user_id, include_closed=True) == []
    [job_id] = _job_ids(mem, user_id)
    job = mem.job(job_id, user_id=user_id)
    assert job.status == "failed" and "ModelOutputError" in (job.error or "")
    # the JSON log line names the job and the error's class, never the session's text
    # (seen once or twice: the handler is on "hmem" and, while it propagates, the root)
    records = {id(r): r for r in caplog.records if getattr(r, "job_id", None) == job_id}
    assert len(records) == 1
    line = json.loads(JsonFormatter().format(next(iter(records.values()))))
    assert (line["job_id"], line["error"]) == (job_id, "ModelOutputError")
    assert "Oslo" not in json.dumps(line)

    fake_openai.queue_chat({"facts": [fact("Maya lives in Oslo.")]})
    mem.retry_job(job_id, user_id=user_id)
    assert mem.run_jobs() == 1
    assert [f.text for f in mem.facts(user_id=user_id)] == ["Maya lives in Oslo."]


def test_malformed_once_is_retried_once(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat("oops", {"facts": [fact("Maya lives in Oslo.")]})
    result = mem.add("I live in Oslo.", user_id=user_id)
    assert len(result.added) == 1 and fake_openai.chat_calls == 2


def test_wrong_schema_fails_cleanly(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    bad = {"facts": [{"text": "Maya lives in Oslo.", "importance": 99}]}
    fake_openai.queue_chat(bad, bad)
    with pytest.raises(ModelOutputError):
        mem.add("I live in Oslo.", user_id=user_id)
    assert mem.store.counts(user_id)["facts"] == 0


def test_another_users_id_is_rejected(
    mem: Memory, user_id: str, other_user: str, fake_openai: FakeOpenAIServer
) -> None:
    theirs = mem.remember("Maya lives in London.", user_id=other_user).added[0]
    mine = mem.remember("Maya lives in London.", user_id=user_id).added[0]
    fake_openai.queue_chat(
        {
            "facts": [
                fact(
                    "Maya moved to Paris.",
                    relations=[{"target_id": theirs, "relation": "contradicts"}],
                )
            ]
        }
    )
    result = mem.add("I moved to Paris.", user_id=user_id)
    assert result.rejected_targets == [theirs] and result.superseded == []
    assert mem.get(theirs, user_id=other_user).is_open
    assert mem.get(mine, user_id=user_id).is_open  # nothing closed on a guess
    assert len(result.added) == 1


def test_timeout_keeps_the_session_queued(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path, user_id: str
) -> None:
    cfg = model_config(
        config, fake_openai, tmp_path / "q.sqlite3", llm_timeout_s=0.5, llm_max_retries=0
    )
    with Memory(cfg, driver=driver) as memory:
        fake_openai.queue_chat(Delay(3.0, then={"facts": []}))
        with pytest.raises(ModelUnavailableError):
            memory.add("I live in Oslo.", user_id=user_id)
        [job_id] = _job_ids(memory, user_id)
        assert memory.job(job_id, user_id=user_id).status == "queued"  # not lost


def test_429_then_success(mem: Memory, user_id: str, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(
        HttpError(429, "slow down", headers={"Retry-After": "0"}),
        {"facts": [fact("Maya lives in Oslo.")]},
    )
    result = mem.add("I live in Oslo.", user_id=user_id)
    assert len(result.added) == 1 and result.chat_calls == 1 and fake_openai.chat_calls == 2


def test_401_fails_without_writing(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat(HttpError(401, "bad key"))
    with pytest.raises(ModelAuthError):
        mem.add("I live in Oslo.", user_id=user_id)
    assert fake_openai.chat_calls == 1 and mem.store.counts(user_id)["facts"] == 0


def test_background_mode_returns_at_once(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat({"facts": [fact("Maya lives in Oslo.")]})
    queued = mem.add("I live in Oslo.", user_id=user_id, background=True)
    assert queued.status == "queued" and queued.added == [] and fake_openai.chat_calls == 0
    assert mem.run_jobs() == 1
    job = mem.job(queued.job_id, user_id=user_id)
    assert job.status == "done" and job.result is not None and len(job.result["added"]) == 1
    with pytest.raises(HmemError):
        mem.job(queued.job_id, user_id="someone-else")


def test_store_outage_requeues_then_succeeds(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path, user_id: str
) -> None:
    queue = tmp_path / "q.sqlite3"
    down = model_config(config, fake_openai, queue, neo4j_uri="bolt://127.0.0.1:1")
    with Memory(down) as memory:
        queued = memory.add("I live in Oslo.", user_id=user_id, background=True)
        assert memory.run_jobs() == 1
        job = memory.job(queued.job_id, user_id=user_id)
        assert job.status == "queued" and "StoreUnavailableError" in (job.error or "")
    fake_openai.queue_chat({"facts": [fact("Maya lives in Oslo.")]})
    with Memory(model_config(config, fake_openai, queue), driver=driver) as memory:
        memory.ingest.queue._update(queued.job_id, not_before=0)  # skip the backoff wait
        assert memory.run_jobs() == 1
        assert memory.job(queued.job_id, user_id=user_id).status == "done"


def test_erase_user_purges_queued_sessions(mem: Memory, user_id: str) -> None:
    mem.add("I live in Oslo.", user_id=user_id, background=True)
    assert mem.erase_user(user_id)["jobs"] == 1
    assert _job_ids(mem, user_id) == []


def _job_ids(memory: Memory, user_id: str) -> list[str]:
    with memory.ingest.queue._db() as db:
        rows = db.execute("SELECT id FROM jobs WHERE user_id = ?", (user_id,)).fetchall()
    return [r["id"] for r in rows]


def test_running_profile_is_optional_and_erased(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path, user_id: str
) -> None:
    cfg = model_config(config, fake_openai, tmp_path / "q.sqlite3", profile_enabled=True)
    with Memory(cfg, driver=driver) as memory:
        fake_openai.queue_chat(
            {"facts": [fact("Maya lives in Oslo.")]}, {"text": "Maya lives in Oslo."}
        )
        result = memory.add("I live in Oslo.", user_id=user_id)
        assert result.profile_updated is True and result.chat_calls == 2
        assert (
            "NEW FACTS:\n- Maya lives in Oslo."
            in fake_openai.chat_requests[-1]["messages"][-1]["content"]
        )
        profile = memory.profile(user_id=user_id)
        assert profile is not None and profile["text"] == "Maya lives in Oslo."
        # a profile reply over 120 words fails validation; the session's facts stay
        long = {"text": "word " * 130}
        fake_openai.queue_chat({"facts": [fact("Maya has a dog named Rex.")]}, long, long)
        again = memory.add("I have a dog named Rex.", user_id=user_id)
        assert again.profile_updated is False and len(again.added) == 1
        with pytest.raises(HmemError):
            memory.set_profile("word " * 121, user_id=user_id)
        assert memory.erase_user(user_id)["profiles"] == 1
        assert memory.profile(user_id=user_id) is None


def test_older_news_never_closes_a_newer_fact(
    mem: Memory, user_id: str, fake_openai: FakeOpenAIServer
) -> None:
    """'contradicts' about an earlier time than the stored fact: both stay open, and
    the conflict is marked and shown with both dates instead of a wrong supersession."""
    globex = mem.remember(
        "Maya works at Globex.",
        user_id=user_id,
        valid_from=day(2026, 1, 10),
        observed_at=day(2026, 1, 10),
    ).added[0]
    fake_openai.queue_chat(
        related(
            "Maya works at Initech.", "Maya works at Globex.", "contradicts", event_date="2025-06"
        )
    )
    result = mem.add("I work at Initech.", user_id=user_id, observed_at=day(2026, 2, 1))
    assert result.superseded == [] and len(result.added) == 1
    assert mem.get(globex, user_id=user_id).is_open
    found = mem.search("Where does Maya work?", user_id=user_id, now=day(2026, 2, 2))
    assert "Globex" in found.context and "Initech" in found.context
    assert any(h.conflicts_with for h in found.hits)


def test_a_job_done_by_another_process_is_followed_by_this_ones_reads(
    config: Config, fake_openai: FakeOpenAIServer, tmp_path: Path, user_id: str
) -> None:
    """The API and a separate `hmem worker` share the queue, not a driver: the worker's
    write leaves its bookmarks in the job's result, and the API's ``job()`` hands them
    to its own driver, so its reads wait for that write on a cluster. ``remember``'s
    result carries them too, for ``catch_up`` in any other process."""
    settings = model_config(config, fake_openai, tmp_path / "shared-queue.sqlite3")
    with Memory(settings) as api, Memory(settings) as worker:  # a driver each
        followed = api._driver.execute_query_bookmark_manager
        fake_openai.queue_chat({"facts": [fact("Maya lives in Oslo.")]})
        queued = api.add("I live in Oslo.", user_id=user_id, background=True)
        assert worker.run_jobs() == 1
        assert not set(followed.get_bookmarks()) & set(worker_bookmarks(worker))
        done = api.job(queued.job_id, user_id=user_id)
        assert done.status == "done" and done.result is not None
        assert done.result["bookmarks"]
        assert set(done.result["bookmarks"]) <= set(followed.get_bookmarks())
        assert [f.text for f in api.facts(user_id=user_id)] == ["Maya lives in Oslo."]

        written = worker.remember("Maya has a cat.", user_id=user_id, observed_at=day(2026, 6, 2))
        assert written.bookmarks and not set(written.bookmarks) <= set(followed.get_bookmarks())
        api.catch_up(written.bookmarks)
        assert set(written.bookmarks) <= set(followed.get_bookmarks())
        with pytest.raises(HmemError, match="list of strings"):
            api.catch_up("not-a-list")  # type: ignore[arg-type]


def worker_bookmarks(memory: Memory) -> list[str]:
    return list(memory._driver.execute_query_bookmark_manager.get_bookmarks())
