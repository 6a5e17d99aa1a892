"""Vectors are checked at every entry, and a bad stored vector never blocks its user.

A cosine with an all-zero, NaN, Infinity or overflowing vector is undefined: Neo4j's
``vector.similarity.cosine`` fails the whole statement, so one such vector stored for a
user used to fail every later session of that user (the read-before-write scan).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.errors import DimensionMismatchError, InvalidVectorError, ModelOutputError
from hmem.graph.search import FactSearch, Question
from hmem.models import FactDraft
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.integration.test_api_fixtures import fresh_tenant, live_server

DIM = 384
GOOD = [1.0] + [0.0] * (DIM - 1)
BAD = {
    "zeros": [0.0] * DIM,
    "nan": [math.nan] + [0.1] * (DIM - 1),
    "infinity": [math.inf] + [0.1] * (DIM - 1),
    "overflowing length": [1e300] * DIM,
    "underflowing length": [1e-200] * DIM,
}


def _settings(config: Config, fake: FakeOpenAIServer, queue: Path) -> Config:
    return Config(
        **{
            **config.model_dump(),
            "llm_base_url": fake.base_url,
            "llm_api_key": FAKE_API_KEY,
            "llm_max_retries": 0,
            "embed_provider": "openai",
            "embed_base_url": fake.base_url,
            "embed_api_key": FAKE_API_KEY,
            "queue_path": queue,
        }
    )


@pytest.fixture
def mem(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> Iterator[Memory]:
    memory = Memory(_settings(config, fake_openai, tmp_path / "q.sqlite3"), driver=driver)
    yield memory
    memory.shutdown()


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_vector_is_refused_at_every_entry(memory: Memory, user_id: str, name: str) -> None:
    vector = BAD[name]
    with pytest.raises(InvalidVectorError):
        memory.remember("Maya likes tea.", user_id=user_id, embedding=vector)
    with pytest.raises(InvalidVectorError):
        FactDraft(text="Maya likes tea.", embedding=vector)
    unchecked = FactDraft.model_construct(text="Maya likes tea.", embedding=vector)
    with pytest.raises(InvalidVectorError):  # the store checks again: model_copy skips validators
        memory.remember_many([unchecked], user_id=user_id)
    with pytest.raises(InvalidVectorError):
        memory.store.neighbours(user_id, vector)
    assert memory.facts(user_id=user_id, include_closed=True) == []


def test_wrong_dimension_is_refused(memory: Memory, user_id: str) -> None:
    with pytest.raises(DimensionMismatchError):
        memory.remember("Maya likes tea.", user_id=user_id, embedding=[0.5] * 3)


def test_embedder_returning_zeros_is_a_model_error(
    config: Config, driver: Driver, user_id: str, tmp_path: Path
) -> None:
    with FakeOpenAIServer(embed_fn=lambda _text, dim: [0.0] * dim) as fake:
        memory = Memory(_settings(config, fake, tmp_path / "q.sqlite3"), driver=driver)
        try:
            with pytest.raises(ModelOutputError, match="zero length"):
                memory.remember("Maya likes tea.", user_id=user_id)
        finally:
            memory.shutdown()
    assert memory.facts(user_id=user_id, include_closed=True) == []


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_stored_vector_does_not_block_its_user(
    mem: Memory, driver: Driver, user_id: str, fake_openai: FakeOpenAIServer, name: str
) -> None:
    tea = mem.remember("Maya likes green tea.", user_id=user_id).added[0]
    bad = mem.remember("Maya has a bicycle.", user_id=user_id).added[0]
    # As written by an older hmem, which checked only the dimension.
    driver.execute_query(
        "MATCH (f:Fact {user_id: $u, id: $id}) SET f.embedding = $v REMOVE f.embedding_f32le",
        u=user_id,
        id=bad,
        v=BAD[name],
    )
    found = [r["id"] for r in mem.store.neighbours(user_id, GOOD)]
    assert tea in found and bad not in found
    # Plain Cypher reads float arrays: what a store on a server without hmem's plugin
    # gives every fact (the good one was written with the plugin, as bytes only).
    mem.store.unpack_vectors()
    for native in (False, True):
        search = FactSearch(driver, native_topk=native)
        rows = search.candidates(
            Question(
                user_id, vector=GOOD, lucene=None, entity_grams=[], mode="current",
                now=datetime.now(UTC), k_dense=10,
            ),
            strategy="exact",
        ).rows  # fmt: skip
        assert [r.id for r in rows] == [tea]
    fake_openai.queue_chat({"facts": []})
    result = mem.add([{"role": "user", "content": "I moved to Lyon."}], user_id=user_id)
    assert result.status == "done"


def test_nan_and_infinity_over_http_are_422(
    config: Config, driver: Driver, memory: Memory, tmp_path: Path
) -> None:
    settings = config.model_copy(update={"queue_path": tmp_path / "q.sqlite3"})
    with (
        fresh_tenant(driver, memory) as tenant,
        live_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        user = tenant.user()
        auth = {"Authorization": f"Bearer {tenant.key}", "Content-Type": "application/json"}
        for token in ("NaN", "Infinity", "-Infinity", "1e309"):
            values = token + ", 0.1" * 383
            body = '{"text": "Maya likes tea.", "embedding": [' + values + "]}"
            got = http.post(f"/v1/users/{user}/facts", headers=auth, content=body)
            assert got.status_code == 422, (token, got.status_code, got.text)
            assert got.json()["error"] == "InvalidVectorError"
        zeros = http.post(
            f"/v1/users/{user}/facts",
            headers=auth,
            json={"text": "Maya likes tea.", "embedding": [0.0] * DIM},
        )
        assert zeros.status_code == 422 and zeros.json()["error"] == "InvalidVectorError"
        assert http.get(f"/v1/users/{user}/facts", headers=auth).json()["items"] == []
