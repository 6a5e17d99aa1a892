"""Pytest fixtures for the fakes; registered in tests/conftest.py via ``pytest_plugins``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

__all__ = ["fake_openai"]


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A fresh fake OpenAI-compatible server per test, expecting ``FAKE_API_KEY``.

    Adjust it in the test (``embedding_dim``, ``embed_fn``, ``json_schema_supported``,
    ``base64_embeddings``, ``api_key``) and script it with ``queue_chat``/``queue_embeddings``.
    """
    with FakeOpenAIServer() as server:
        yield server
