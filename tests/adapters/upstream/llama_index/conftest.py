"""hmem's fixture for LlamaIndex's own ``tests/memory/blocks/test_vector.py`` (vendored
unchanged, see UPSTREAM.md): while a test runs, the ``VectorMemoryBlock`` that module
builds (in its fixture and in the tests) is hmem's ``HmemMemoryBlock`` on the real
Neo4j for a fresh user, with the test's own ``similarity_top_k``,
``retrieval_context_window``, ``format_template`` and ``node_postprocessors``; the mock
vector store and mock embedding are not used (hmem stores and embeds). The backend is
model-free: what the block is handed is stored as given.

The ``async`` tests run on ``asyncio.run`` (upstream uses pytest-asyncio's marker;
hmem's test extra has no pytest-asyncio). SKIPPED lists each upstream test that does not
run, with its reason."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from typing import Any

import pytest

from hmem import Memory
from hmem.faces.adapters.llama_index import HmemMemoryBlock

_STORE = (
    "asserts on MockVectorStore.nodes, the test's own in-memory stand-in for "
    "VectorMemoryBlock's vector store, which HmemMemoryBlock has no use for; the same "
    "checks against what hmem stored: tests/adapters/test_llama_index.py::{test}"
)

SKIPPED: dict[str, str] = {
    "test_vector_memory_block_put": _STORE.format(test="test_put_stores_the_batch_as_given"),
    "test_empty_messages": _STORE.format(test="test_empty_or_textless_put_stores_nothing"),
    "test_message_without_text": _STORE.format(
        test="test_empty_or_textless_put_stores_nothing"
    ),
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "asyncio: an async test (run on asyncio.run here)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.name in SKIPPED:
            item.add_marker(pytest.mark.skip(reason=SKIPPED[item.name]))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
    return True


@pytest.fixture(autouse=True)
def hmem_block(request: pytest.FixtureRequest, memory: Memory, user_id: str) -> Iterator[None]:
    """``VectorMemoryBlock`` in the upstream module is hmem's block while the test runs."""

    def block(vector_store: Any = None, embed_model: Any = None, **options: Any) -> Any:
        return HmemMemoryBlock(backend=memory, user_id=user_id, **options)

    module = request.module
    reference = module.VectorMemoryBlock
    module.VectorMemoryBlock = block
    try:
        yield
    finally:
        module.VectorMemoryBlock = reference
