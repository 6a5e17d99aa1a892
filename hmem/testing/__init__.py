"""Test seams for hmem's users and its own tests and benchmarks.

``FakeOpenAIServer`` is a real OpenAI-compatible HTTP server on 127.0.0.1 with scripted
replies, counting calls and tokens: point ``HMEM_LLM_BASE_URL`` / ``HMEM_EMBED_BASE_URL``
at it to exercise the write path without a model.
"""

from hmem.testing.openai_server import (
    FAKE_API_KEY,
    ChatReply,
    Delay,
    FakeOpenAIServer,
    HttpError,
    hash_embedding,
)

__all__ = ["FAKE_API_KEY", "ChatReply", "Delay", "FakeOpenAIServer", "HttpError", "hash_embedding"]
