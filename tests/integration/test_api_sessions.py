"""Sessions over HTTP: sync and background adds, job status, and their metrics."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from neo4j import Driver

from hmem import Config, Memory
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import fresh_tenant, live_server


def _fact(text: str) -> dict[str, object]:
    return {
        "text": text,
        "category": "semantic",
        "importance": 5,
        "event_date": None,
        "entities": [],
        "relations": [],
    }


def test_background_session_over_http_counts_its_dials(
    config: Config, driver: Driver, memory: Memory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    settings = Config(
        **{
            **config.model_dump(),
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "embed_provider": "openai",
            "embed_base_url": fake_openai.base_url,
            "embed_api_key": FAKE_API_KEY,
            "queue_path": tmp_path / "queue.sqlite3",
            "api_worker": True,
        }
    )
    fake_openai.queue_chat(
        {"facts": [_fact("Maya lives in Oslo.")]}, {"facts": [_fact("Maya has a dog named Rex.")]}
    )
    with (
        fresh_tenant(driver, memory) as tenant,
        live_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=120) as http,
    ):
        maya = tenant.user("maya")
        auth = {"Authorization": f"Bearer {tenant.key}"}
        sync = http.post(
            f"/v1/users/{maya}/messages",
            headers=auth,
            json={"messages": [{"role": "user", "content": "I live in Oslo."}]},
        )
        assert sync.status_code == 200, sync.text
        assert len(sync.json()["added"]) == 1
        queued = http.post(
            f"/v1/users/{maya}/messages",
            headers=auth,
            json={
                "messages": [
                    {"role": "user", "content": "I have a dog named Rex."},
                    {"role": "user", "content": "My password is Hunter2-horse!"},
                ],
                "background": True,
            },
        )
        assert queued.status_code == 202 and queued.json()["status"] == "queued"
        job_url = f"/v1/users/{maya}/jobs/{queued.json()['job_id']}"
        deadline = time.monotonic() + 60
        while http.get(job_url, headers=auth).json()["status"] != "done":
            assert time.monotonic() < deadline, http.get(job_url, headers=auth).text
            time.sleep(0.2)
        facts = http.get(f"/v1/users/{maya}/facts", headers=auth).json()
        assert {f["text"] for f in facts["items"]} == {
            "Maya lives in Oslo.",
            "Maya has a dog named Rex.",
        }
        metrics = http.get("/metrics").text
    added = next(
        line for line in metrics.splitlines() if line.startswith('hmem_write_ops_total{op="added"}')
    )
    assert float(added.split()[-1]) == 2.0  # the sync and the background session
    assert 'hmem_policy_refusals_total{kind="credential"} 1.0' in metrics
    assert "Hunter2" not in metrics and "Oslo" not in metrics
