"""The fake OpenAI-compatible server lives in the package (``hmem.testing``) so that
benchmarks can use it too; tests import it from here."""

from hmem.testing.openai_server import (
    FAKE_API_KEY,
    ChatReply,
    Delay,
    FakeOpenAIServer,
    HttpError,
    RecordedRequest,
    hash_embedding,
)

__all__ = [
    "FAKE_API_KEY",
    "ChatReply",
    "Delay",
    "FakeOpenAIServer",
    "HttpError",
    "RecordedRequest",
    "hash_embedding",
]
