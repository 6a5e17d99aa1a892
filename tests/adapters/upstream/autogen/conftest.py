"""hmem's fixture for AutoGen's own memory tests (see UPSTREAM.md).

The upstream files build the reference memories by name: ``ListMemory(...)``
(autogen-core), ``ChromaDBVectorMemory(config=...)`` and ``RedisMemory(config)``
(autogen-ext). Here those names, in the test modules only, build ``HmemMemory`` on one
embedded hmem (a real Neo4j, the local MiniLM model when the checkout has it), with the
reference's own settings carried over:

- ``ListMemory``: ``sequential=True`` (every item, in the order added: what ListMemory
  returns), no limit;
- ``ChromaDBVectorMemory``: its config's ``k`` and ``score_threshold``; results carry
  ``score`` and ``id`` in their metadata (``annotate=True``), as Chroma's do;
- ``RedisMemory``: its ``top_k``, ``sequential`` and ``distance_threshold`` (cosine
  distance: 1 - similarity); metadata exactly as given (``annotate=False``), as Redis's.

A memory's hmem user is fresh per test and per store (collection / index), so that two
memories built on one config share their items as the reference's do; every user a
test touched is erased after it. The Redis tests' ``redis_available()`` skip is dropped:
the swapped memory needs no Redis server.

Skipped upstream tests, each with its reason: ``SKIPPED``.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.faces.adapters.autogen import HmemMemory
from tests.integration.conftest import config, driver  # noqa: F401  (fixtures)

CHROMA_CONFIG = (
    "a test of ChromaDBVectorMemory's own config classes (HTTP client settings, "
    "embedding-function configs): Chroma's settings, not the Memory interface"
)
CHROMA_EMBEDDING = (
    "chooses Chroma's embedding function through its private embedding_function_config; "
    "an hmem store has one embedding model for all its memories (set on the Memory / server)"
)
REDIS_PRIVATE = (
    "patches or reads RedisMemory's private redisvl objects (SemanticMessageHistory, "
    "message_history, _vectorizer) or its config class: Redis internals, not the interface"
)
MPNET = (
    "asserts rankings and cut-offs measured with RedisMemoryConfig's embedding model, "
    "all-mpnet-base-v2; this store embeds with all-MiniLM-L6-v2 (an hmem store has one "
    "model, chosen on the Memory or server): {}"
)
SKIPPED = {
    # autogen-core
    "test_memory_component_dump_config_to_base_model": (
        "asserts ListMemory's provider path and its config fields (name, "
        "memory_contents); HmemMemory's dump/load is pinned by tests/adapters/test_autogen.py"
    ),
    "test_memory_component_load_config_from_base_model": (
        "loads autogen_core's ListMemory by its provider path and checks it is one: a "
        "test of the reference class (HmemMemory's load_component: "
        "tests/adapters/test_autogen.py)"
    ),
    # autogen-ext chromadb
    "test_http_config": CHROMA_CONFIG,
    "test_openai_embedding_function": CHROMA_CONFIG,
    "test_embedding_function_config_validation": CHROMA_CONFIG,
    "test_default_embedding_function": CHROMA_EMBEDDING,
    "test_sentence_transformer_embedding_function": CHROMA_EMBEDDING,
    "test_custom_embedding_function": CHROMA_EMBEDDING,
    "test_embedding_function_error_handling": CHROMA_EMBEDDING,
    "test_initialization": (
        "reads ChromaDBVectorMemory's collection_name and calls its reset(), Chroma's own "
        "API beyond the Memory interface (clear() is the interface's, and passes here)"
    ),
    "test_component_serialization": (
        "asserts the dumped config's collection_name, a ChromaDBVectorMemory config field; "
        "HmemMemory's dump/load round trip is pinned by tests/adapters/test_autogen.py"
    ),
    "test_error_handling": (
        "expects ChromaDBVectorMemory's limitation that binary content cannot be stored "
        "(ValueError 'Unsupported content type'); MemoryMimeType.BINARY is an AutoGen "
        "content type HmemMemory keeps (tests/adapters/test_autogen.py pins bytes, and the "
        "other half of this test, 'JSON content must be a dict')"
    ),
    # autogen-ext redis
    "test_redis_memory_add_with_mock": REDIS_PRIVATE,
    "test_redis_memory_query_with_mock": REDIS_PRIVATE,
    "test_redis_memory_clear_with_mock": REDIS_PRIVATE,
    "test_redis_memory_close_with_mock": REDIS_PRIVATE,
    "test_memory_config": REDIS_PRIVATE,
    "test_create_memory": REDIS_PRIVATE,
    "test_specify_vectorizer": REDIS_PRIVATE,
    "test_update_context": MPNET.format(
        "its second half asserts the order of two Napoleon sentences for 'Can you tell me "
        "about the reign of Emperor Napoleon?'; MiniLM ranks the one that names the reign "
        "first (cosine 0.62 against 0.58)"
    ),
    "test_query_arguments": MPNET.format(
        "it expects 'I like plums as well' within distance 0.5 of 'my favorite fruit are "
        "what?' (no word shared; MiniLM's cosine is 0.495); top_k, distance_threshold and "
        "sequential per query are pinned by tests/adapters/test_autogen.py"
    ),
    "test_close": (
        "RedisMemory.close() deletes its Redis index, and the test expects redisvl's "
        "RedisSearchError from a query afterwards; the Memory interface's close() releases "
        "resources, and HmemMemory's never deletes the user's memories (tests/adapters/"
        "test_autogen.py pins that close() leaves a shared backend working)"
    ),
}


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    """Upstream runs pytest-asyncio in auto mode: its async tests carry no marker."""
    marked = any(m.name == "asyncio" for m in getattr(obj, "pytestmark", []))
    if name.startswith("test") and inspect.iscoroutinefunction(obj) and not marked:
        pytest.mark.asyncio(obj)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        name = getattr(item, "originalname", item.name)
        if name in SKIPPED:
            item.add_marker(pytest.mark.skip(reason=SKIPPED[name]))
        # the swapped memory needs no Redis server: upstream's availability skip goes
        item.own_markers[:] = [
            m
            for m in item.own_markers
            if not (m.name == "skipif" and "Redis instance" in str(m.kwargs.get("reason")))
        ]


def _embedder() -> Any:
    from tests.integration._recall_fixtures import MODEL

    if not MODEL.is_dir():
        return None  # hmem's search is then lexical: the scores are the lexical ones
    from hmem.extract.local_embed import LocalEmbeddings

    return LocalEmbeddings(model_dir=MODEL, threads=1, expected_dim=384)


@pytest.fixture(scope="session")
def upstream_memory(config: Config, driver: Driver) -> Iterator[Memory]:  # noqa: F811
    settings = Config(**{**config.model_dump(), "embed_model_check": False})
    memory = Memory(settings, driver=driver, embedder=_embedder())
    memory.init_schema()
    warm = f"warm-{uuid.uuid4().hex[:10]}"  # the first write and search load the models
    memory.remember("A first memory.", user_id=warm, infer=False)
    memory.search("first", user_id=warm)
    memory.erase_user(warm)
    yield memory
    memory.shutdown()


@pytest.fixture(autouse=True)
def hmem_memory(
    request: pytest.FixtureRequest, upstream_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The reference memory's name, in the upstream module, builds ``HmemMemory``."""
    run = f"ag{uuid.uuid4().hex[:10]}-"
    users: set[str] = set()

    def user_for(*store: object) -> str:
        digest = hashlib.sha256(json.dumps([str(s) for s in store]).encode()).hexdigest()
        users.add(run + digest[:16])
        return run + digest[:16]

    def list_memory(name: str | None = None, memory_contents: Any = None) -> HmemMemory:
        if memory_contents:
            raise NotImplementedError("ListMemory(memory_contents=...) is not swapped")
        return HmemMemory(
            upstream_memory, user_id=user_for("list", name), sequential=True, k=10_000,
            annotate=False, learn=False,
        )

    def chroma_memory(config: Any) -> HmemMemory:
        store = ("chroma", getattr(config, "persistence_path", None), config.collection_name)
        return HmemMemory(
            upstream_memory, user_id=user_for(*store), k=config.k,
            score_threshold=config.score_threshold, annotate=True, learn=False,
        )

    def redis_memory(config: Any) -> HmemMemory:
        return HmemMemory(
            upstream_memory, user_id=user_for("redis", config.index_name, config.prefix),
            k=config.top_k, score_threshold=1.0 - config.distance_threshold,
            sequential=config.sequential, annotate=False, learn=False,
        )

    swaps = {
        "ListMemory": list_memory,
        "ChromaDBVectorMemory": chroma_memory,
        "RedisMemory": redis_memory,
    }
    for name, build in swaps.items():
        if hasattr(request.module, name):
            monkeypatch.setattr(request.module, name, build)
    yield
    for user in users:
        upstream_memory.erase_user(user)
