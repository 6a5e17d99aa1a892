"""``add`` (sync and background, with job status) and ``search`` over HTTP, with the
extractor served by the fake OpenAI-compatible HTTP server."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from hmem import Client, Config, Memory, NotFoundError
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import Tenant, fresh_tenant, live_server


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory) as t:
        yield t


def _fact(text: str, entities: list[str]) -> dict[str, object]:
    return {
        "text": text,
        "category": "semantic",
        "importance": 5,
        "event_date": None,
        "entities": [{"name": e, "type": "thing"} for e in entities],
        "relations": [],
    }


def test_add_sync_background_jobs_and_search(
    config: Config, tenant: Tenant, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    with_model = Config(
        **{
            **config.model_dump(),
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "llm_model": "fake-chat",
            "llm_max_retries": 1,
            "queue_path": tmp_path / "queue.sqlite3",
        }
    )
    maya = tenant.user("maya")
    fake_openai.queue_chat({"facts": [_fact("Maya lives in London.", ["Maya", "London"])]})
    fake_openai.queue_chat({"facts": [_fact("Maya has a cat named Miso.", ["Maya", "Miso"])]})
    with live_server(with_model) as server, Client(server.url, api_key=tenant.key) as client:
        done = client.add(
            [
                {"role": "user", "content": "I live in London."},
                {"role": "assistant", "content": "Noted!"},
            ],
            user_id=maya,
            session_id="s1",
            idempotency_key="req-1",
        )
        assert done.status == "done" and len(done.added) == 1
        assert (
            client.add(
                [
                    {"role": "user", "content": "I live in London."},
                    {"role": "assistant", "content": "Noted!"},
                ],
                user_id=maya,
                session_id="s1",
                idempotency_key="req-1",
            ).job_id
            == done.job_id
        )  # a retried request is the same job

        queued = client.add("We adopted a cat, Miso.", user_id=maya, background=True)
        assert queued.status == "queued"
        deadline = time.monotonic() + 30
        while (job := client.job(queued.job_id, user_id=maya))["status"] != "done":
            assert job["status"] in ("queued", "running"), job
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert job["user_id"] == maya and len(job["result"]["added"]) == 1
        assert "Miso" not in str({k: v for k, v in job.items() if k != "result"})
        with pytest.raises(NotFoundError):
            client.job("no-such-job", user_id=maya)

        found = client.search("Where does Maya live? London", user_id=maya)
        assert found.hits[0].fact.text == "Maya lives in London."
        assert found.hits[0].fact.user_id == maya
        assert "London" in found.context and found.dense is False

        # another tenant's key sees neither the jobs nor the facts
        with (
            fresh_tenant(tenant.keys._driver, tenant.memory) as other,
            Client(server.url, api_key=other.key) as intruder,
        ):
            with pytest.raises(NotFoundError):
                intruder.job(queued.job_id, user_id=maya)
            assert intruder.search("London", user_id=maya).hits == []
    tenant.memory.ingest.queue.purge_user(tenant.stored(maya))
