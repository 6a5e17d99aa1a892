"""The bad-input corpus over real HTTP: no item answered with a 5xx, and the user unharmed.

The corpus is ``hmem_bench/bad_inputs.json`` (the reliability benchmark sends the same one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem_bench.bad_inputs import load_corpus, send_all
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import LiveServer, Tenant, fresh_tenant, live_server


@pytest.fixture
def served(
    config: Config, driver: Driver, memory: Memory, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> Iterator[tuple[LiveServer, Tenant]]:
    settings = Config(
        **{
            **config.model_dump(),
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "embed_provider": "openai",
            "embed_base_url": fake_openai.base_url,
            "embed_api_key": FAKE_API_KEY,
            "queue_path": tmp_path / "queue.sqlite3",
            "api_worker": False,
            "llm_max_retries": 0,
        }
    )
    fake_openai.queue_chat(*[{"facts": []}] * 200)
    with fresh_tenant(driver, memory) as tenant, live_server(settings) as server:
        yield server, tenant


def test_corpus_is_well_formed() -> None:
    corpus = load_corpus()
    assert len(corpus) >= 100
    assert len({item.name for item in corpus}) == len(corpus)


def test_no_bad_input_gets_a_5xx_and_the_user_still_works(
    served: tuple[LiveServer, Tenant],
) -> None:
    server, tenant = served
    user = tenant.user("bad")
    auth = {"Authorization": f"Bearer {tenant.key}"}
    with httpx.Client(base_url=server.url, headers=auth, timeout=60) as http:
        made = http.post(f"/v1/users/{user}/facts", json={"text": "Maya likes green tea."})
        assert made.status_code == 201, made.text
        fact = made.json()["added"][0]

        outcomes = send_all(http, user, fact)

        server_errors = [(o.name, o.status) for o in outcomes if o.status >= 500]
        print(f"bad inputs: {len(outcomes)} sent, {len(server_errors)} answered 5xx")
        assert server_errors == [], "\n".join(f"{n}: {s}" for n, s in server_errors)
        # Nothing the corpus sent may have blocked the user: a session and a search work.
        session = http.post(
            f"/v1/users/{user}/messages",
            json={"messages": [{"role": "user", "content": "I moved to Lyon."}]},
        )
        assert session.status_code == 200, session.text
        found = http.post(f"/v1/users/{user}/search", json={"query": "tea"})
        assert found.status_code == 200, found.text
        assert "green tea" in found.text
