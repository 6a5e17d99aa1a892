"""The model clients against a real fake OpenAI-compatible server on loopback."""

from __future__ import annotations

import math
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest

from hmem.config import Config
from hmem.errors import (
    ConfigError,
    DimensionMismatchError,
    ModelAuthError,
    ModelError,
    ModelNotConfiguredError,
    ModelOutputError,
    ModelUnavailableError,
    RetryableError,
)
from hmem.extract import local_embed
from hmem.extract.clients import (
    ChatClient,
    EmbeddingClient,
    OpenAIEmbeddings,
    Usage,
    make_chat_client,
    make_embedder,
)
from hmem.extract.local_embed import LocalEmbeddings
from tests.fakes.openai_server import (
    FAKE_API_KEY,
    Delay,
    FakeOpenAIServer,
    HttpError,
    hash_embedding,
)

MINILM = Path(__file__).resolve().parents[4] / "shared" / "models" / "all-MiniLM-L6-v2-onnx"


class Person(pydantic.BaseModel):
    name: str
    city: str


PERSON = {"name": "Maya", "city": "Paris"}


@pytest.fixture
def chat(fake_openai: FakeOpenAIServer) -> Iterator[ChatClient]:
    with ChatClient(
        model="fake-chat",
        base_url=fake_openai.base_url,
        api_key=FAKE_API_KEY,
        max_retries=2,
        backoff_base_s=0.001,
        timeout_s=5,
    ) as client:
        yield client


def client_for(server: FakeOpenAIServer, **options: Any) -> ChatClient:
    return ChatClient(model="m", base_url=server.base_url, api_key=FAKE_API_KEY, **options)


def ask(client: ChatClient) -> tuple[Person, Usage]:
    return client.complete_json("Extract the person.", "Maya lives in Paris", Person, name="person")


# -- structured output --------------------------------------------------------------


def test_json_schema_reply_is_validated(chat: ChatClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(PERSON)
    person, usage = ask(chat)
    assert person == Person(name="Maya", city="Paris")
    assert usage == Usage(prompt_tokens=3 + 4, completion_tokens=4, calls=1)
    (body,) = fake_openai.chat_requests
    assert body["temperature"] == 0
    assert body["model"] == "fake-chat"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "person", "schema": Person.model_json_schema(), "strict": False},
    }
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {FAKE_API_KEY}"


def test_auto_falls_back_to_json_object_for_the_clients_lifetime(
    chat: ChatClient, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.json_schema_supported = False
    fake_openai.queue_chat(PERSON, PERSON)
    assert ask(chat)[0].city == "Paris"
    assert chat.response_format == "json_object"
    assert ask(chat)[0].city == "Paris"
    formats = [body["response_format"]["type"] for body in fake_openai.chat_requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    # json_object mode carries the schema in the system prompt instead
    system = fake_openai.chat_requests[1]["messages"][0]
    assert system["role"] == "system"
    assert '"city"' in system["content"]


def test_configured_json_schema_does_not_fall_back(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.json_schema_supported = False
    with (
        client_for(fake_openai, response_format="json_schema") as client,
        pytest.raises(ModelError, match="HTTP 400") as info,
    ):
        ask(client)
    assert not isinstance(info.value, RetryableError)
    assert fake_openai.chat_calls == 1


def test_configured_json_object(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(PERSON)
    with client_for(fake_openai, response_format="json_object") as client:
        assert ask(client)[0].name == "Maya"
    assert fake_openai.chat_requests[0]["response_format"] == {"type": "json_object"}


def test_malformed_json_is_retried_once_with_a_note(
    chat: ChatClient, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat('{"name": "Maya", "city": ', PERSON)
    person, usage = ask(chat)
    assert person.city == "Paris"
    assert usage.calls == 2
    assert fake_openai.chat_calls == 2
    first, second = fake_openai.chat_requests
    assert second["messages"][:2] == first["messages"]
    assert second["messages"][2] == {"role": "assistant", "content": '{"name": "Maya", "city": '}
    assert second["messages"][3]["role"] == "user"
    assert "could not be used" in second["messages"][3]["content"]


def test_malformed_twice_raises_model_output_error_keeping_raw(
    chat: ChatClient, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat("not json", "still not json")
    with pytest.raises(ModelOutputError, match="person") as info:
        ask(chat)
    assert info.value.raw == "still not json"
    assert fake_openai.chat_calls == 2


def test_schema_violation_is_retried_then_raised(
    chat: ChatClient, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat({"name": "Maya"}, {"name": 3, "city": "Paris"})
    with pytest.raises(ModelOutputError, match=r"name: Input should be a valid string") as info:
        ask(chat)
    assert info.value.raw == '{"name": 3, "city": "Paris"}'
    note = fake_openai.chat_requests[1]["messages"][3]["content"]
    assert "city: Field required" in note


def test_schema_violation_then_valid_reply(chat: ChatClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat({"name": "Maya"}, PERSON)
    assert ask(chat)[0] == Person(**PERSON)
    assert fake_openai.chat_calls == 2


def test_code_fence_around_the_json_is_accepted(
    chat: ChatClient, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat('```json\n{"name": "Maya", "city": "Paris"}\n```')
    assert ask(chat)[0].city == "Paris"
    assert fake_openai.chat_calls == 1


# -- transport failures -------------------------------------------------------------


def test_429_is_retried(chat: ChatClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(HttpError(429, "slow down"), PERSON)
    person, usage = ask(chat)
    assert person.name == "Maya"
    assert usage.calls == 1  # completions received, not HTTP attempts
    assert fake_openai.chat_calls == 2


def test_retry_after_header_is_honoured_within_the_cap(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(HttpError(429, headers={"retry-after": "30"}), PERSON)
    with ChatClient(
        model="m",
        base_url=fake_openai.base_url,
        api_key=FAKE_API_KEY,
        backoff_base_s=0.001,
        backoff_max_s=0.05,
    ) as client:
        started = time.monotonic()
        ask(client)
    assert 0.05 <= time.monotonic() - started < 5


def test_5xx_until_retries_run_out(chat: ChatClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(*[HttpError(500, "boom")] * 3, PERSON)
    with pytest.raises(ModelUnavailableError, match=r"HTTP 500: boom \(gave up after 3 attempts"):
        ask(chat)
    assert fake_openai.chat_calls == 3  # 1 + max_retries
    assert fake_openai.pending_chat == 1


def test_timeout_is_unavailable(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(Delay(3, PERSON), Delay(3, PERSON))
    with (
        ChatClient(
            model="m",
            base_url=fake_openai.base_url,
            api_key=FAKE_API_KEY,
            timeout_s=0.2,
            max_retries=1,
            backoff_base_s=0.001,
        ) as client,
        pytest.raises(ModelUnavailableError, match="timed out"),
    ):
        ask(client)
    assert fake_openai.chat_calls == 2


def test_connection_refused_is_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with (
        ChatClient(
            model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, backoff_base_s=0.001
        ) as client,
        pytest.raises(ModelUnavailableError, match="connection failed"),
    ):
        ask(client)


def test_wrong_key_is_an_auth_error_without_retry(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(PERSON)
    with (
        ChatClient(
            model="m", base_url=fake_openai.base_url, api_key="sk-wrong", backoff_base_s=0.001
        ) as client,
        pytest.raises(ModelAuthError, match="HTTP 401: Incorrect API key"),
    ):
        ask(client)
    assert fake_openai.chat_calls == 1


def test_403_is_an_auth_error(chat: ChatClient, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.queue_chat(HttpError(403, "forbidden"))
    with pytest.raises(ModelAuthError):
        ask(chat)
    assert fake_openai.chat_calls == 1


def test_other_4xx_is_a_model_error_without_retry(
    chat: ChatClient, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_chat(HttpError(404, "model 'fake-chat' not found"))
    with pytest.raises(ModelError, match="model 'fake-chat' not found") as info:
        ask(chat)
    assert not isinstance(info.value, ModelOutputError | ModelAuthError | RetryableError)
    assert fake_openai.chat_calls == 1


def test_the_openai_api_needs_a_key() -> None:
    with pytest.raises(ConfigError, match="API key"):
        ChatClient(model="gpt-4o-mini")


# -- embeddings ---------------------------------------------------------------------


@pytest.fixture
def embedder(fake_openai: FakeOpenAIServer) -> Iterator[OpenAIEmbeddings]:
    with OpenAIEmbeddings(
        model="fake-embed",
        dim=384,
        base_url=fake_openai.base_url,
        api_key=FAKE_API_KEY,
        batch_size=2,
        backoff_base_s=0.001,
    ) as client:
        yield client


def test_embeddings_are_batched_in_order(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer
) -> None:
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    vectors = embedder.embed(texts)
    assert fake_openai.embedding_calls == 3
    assert [b["input"] for b in fake_openai.embedding_requests] == [
        ["alpha", "beta"],
        ["gamma", "delta"],
        ["epsilon"],
    ]
    assert "dimensions" not in fake_openai.embedding_requests[0]
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(hash_embedding(text, 384))
    assert isinstance(embedder, EmbeddingClient)
    assert (embedder.dim, embedder.model_name) == (384, "fake-embed")


def test_no_texts_no_calls(embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer) -> None:
    assert embedder.embed([]) == []
    assert fake_openai.embedding_calls == 0


def test_embeddings_are_l2_normalised(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.embed_fn = lambda text, dim: [3.0, 4.0] + [0.0] * (dim - 2)
    (vector,) = embedder.embed(["x"])
    assert vector[:3] == pytest.approx([0.6, 0.8, 0.0])


def test_dimension_mismatch(embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer) -> None:
    fake_openai.embedding_dim = 16
    with pytest.raises(DimensionMismatchError, match=r"16-dimensional.*embedding_dim is 384"):
        embedder.embed(["x"])


def test_text_embedding_3_is_asked_for_the_configured_dimensions(
    fake_openai: FakeOpenAIServer,
) -> None:
    with OpenAIEmbeddings(
        model="text-embedding-3-small", dim=64, base_url=fake_openai.base_url, api_key=FAKE_API_KEY
    ) as client:
        assert len(client.embed(["x"])[0]) == 64
    assert fake_openai.embedding_requests[0]["dimensions"] == 64


def test_embeddings_retry_and_auth(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_embeddings(HttpError(503), HttpError(429))
    assert len(embedder.embed(["x"])) == 1
    assert fake_openai.embedding_calls == 3
    fake_openai.queue_embeddings(HttpError(401, "bad key"))
    with pytest.raises(ModelAuthError):
        embedder.embed(["x"])
    assert fake_openai.embedding_calls == 4


def _formats(fake: FakeOpenAIServer) -> list[str]:
    return [b["encoding_format"] for b in fake.embedding_requests]


def test_vectors_are_asked_for_as_base64(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer
) -> None:
    (vector,) = embedder.embed(["alpha"])
    assert _formats(fake_openai) == ["base64"]
    assert vector == pytest.approx(hash_embedding("alpha", 384), abs=1e-6)  # float32 on the wire


def test_a_server_that_refuses_base64_is_asked_for_floats_from_then_on(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.base64_embeddings = "refused"
    vectors = embedder.embed(["alpha", "beta", "gamma"])  # two batches
    assert _formats(fake_openai) == ["base64", "float", "float"]
    for text, vector in zip(["alpha", "beta", "gamma"], vectors, strict=True):
        assert vector == pytest.approx(hash_embedding(text, 384))


def test_a_server_that_ignores_the_format_is_read_as_it_answers(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.base64_embeddings = "ignored"
    (vector,) = embedder.embed(["alpha"])
    assert _formats(fake_openai) == ["base64"]
    assert vector == pytest.approx(hash_embedding("alpha", 384))


def test_a_bad_request_that_is_not_about_base64_still_fails(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.queue_embeddings(HttpError(400, "input too long"), HttpError(400, "input too long"))
    with pytest.raises(ModelError, match="HTTP 400: input too long"):
        embedder.embed(["alpha"])
    assert _formats(fake_openai) == ["base64", "float"]  # asked once more, as floats


@pytest.mark.parametrize(
    ("embedding", "message"),
    [
        ("not base64!", "not base64"),
        ("AAAAAAAA", "6 bytes, not float32"),
        ("AAAAAAAAAAAAAAAA", "3-dimensional"),  # 12 bytes: three floats, not two
    ],
)
def test_a_malformed_base64_vector_is_the_models_fault(
    embedder: OpenAIEmbeddings, fake_openai: FakeOpenAIServer, embedding: str, message: str
) -> None:
    fake_openai.embedding_dim = 2
    body = {
        "object": "list",
        "model": "fake-embed",
        "data": [{"object": "embedding", "index": 0, "embedding": embedding}],
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    }
    fake_openai.queue_embeddings(HttpError(200, body=body))
    with pytest.raises((ModelOutputError, DimensionMismatchError), match=message):
        embedder.embed(["alpha"])


# -- factories ----------------------------------------------------------------------


def test_factories_follow_the_config(fake_openai: FakeOpenAIServer) -> None:
    config = Config(
        llm_base_url=fake_openai.base_url,
        llm_api_key=FAKE_API_KEY,
        llm_model="fake-chat",
        embed_base_url=fake_openai.base_url,
        embed_api_key=FAKE_API_KEY,
        embed_provider="openai",
        embed_model="fake-embed",
        embedding_dim=32,
        embed_batch_size=3,
    )
    assert make_embedder(config.model_copy(update={"embed_provider": "none"})) is None
    fake_openai.embedding_dim = 32
    fake_openai.queue_chat(PERSON)
    with make_chat_client(config) as chat:
        assert ask(chat)[0].name == "Maya"
    embedder = make_embedder(config)
    assert isinstance(embedder, OpenAIEmbeddings)
    try:
        assert len(embedder.embed(["a", "b", "c", "d"])) == 4
    finally:
        embedder.close()
    assert fake_openai.embedding_calls == 2


def test_local_embedder_needs_a_model_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        LocalEmbeddings(model_dir=tmp_path / "nowhere")
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"needs an ONNX model"):
        make_embedder(Config(embed_provider="local", embed_model_dir=tmp_path))


def test_a_model_that_cannot_be_had_names_the_variable(tmp_path: Path) -> None:
    """No cache, no folder, no download: 'local' is an error naming HMEM_EMBED_MODEL_DIR,
    'auto' goes on without vectors (one warning line)."""
    settings = {"embed_cache_dir": tmp_path, "embed_download": False}
    with pytest.raises(ModelNotConfiguredError, match="HMEM_EMBED_MODEL_DIR"):
        make_embedder(Config(embed_provider="local", **settings))
    assert make_embedder(Config(embed_provider="auto", **settings)) is None
    with pytest.raises(ConfigError, match="fastembed has no model 'no/such-model'"):
        make_embedder(Config(embed_provider="local", embed_model="no/such-model", **settings))


def test_a_failed_download_is_remembered_not_retried_by_every_command(tmp_path: Path) -> None:
    """Offline, a download that failed a moment ago is not tried again: the next
    Memory (a CLI command, an MCP start) is told at once why, and how to retry now."""
    marker = tmp_path / ".hmem-download-failed-BAAI--bge-small-en-v1.5"
    marker.write_text("Could not load model BAAI/bge-small-en-v1.5 from any source.\n")
    settings = {"embed_cache_dir": tmp_path, "embed_download": True}
    with pytest.raises(ModelNotConfiguredError, match="failed less than 1 h ago") as caught:
        make_embedder(Config(embed_provider="local", **settings))
    assert str(marker) in str(caught.value)  # the file to delete to retry now
    assert "Could not load model" in str(caught.value)
    assert make_embedder(Config(embed_provider="auto", **settings)) is None
    assert local_embed._recent_failure(marker, time.time()) is not None
    later = time.time() + local_embed.DOWNLOAD_RETRY_AFTER_S + 1
    assert local_embed._recent_failure(marker, later) is None  # then it is tried again
    assert local_embed._recent_failure(tmp_path / "absent", time.time()) is None


# -- the local ONNX model -----------------------------------------------------------

needs_minilm = pytest.mark.skipif(
    not (MINILM / "model.onnx").is_file(),
    reason=f"the shared MiniLM ONNX model is not at {MINILM}",
)


@pytest.fixture(scope="module")
def minilm() -> LocalEmbeddings:
    return LocalEmbeddings(model_dir=MINILM, batch_size=2, expected_dim=384)


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@needs_minilm
def test_minilm_vectors_are_unit_and_semantic(minilm: LocalEmbeddings) -> None:
    texts = ["Maya lives in Paris", "Maya moved to Paris", "The stock market fell"]
    lives, moved, market = minilm.embed(texts)
    assert minilm.dim == 384
    assert len(lives) == 384
    for vector in (lives, moved, market):
        assert math.fsum(x * x for x in vector) == pytest.approx(1.0, abs=1e-5)
    assert _cosine(lives, moved) > _cosine(lives, market) + 0.3


@needs_minilm
def test_minilm_batches_keep_order_and_truncate(minilm: LocalEmbeddings) -> None:
    texts = ["a much longer sentence about the weather in Paris", "hi", "word " * 1000, "ok"]
    batched = minilm.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        assert vector == pytest.approx(minilm.embed([text])[0], abs=1e-4)


@needs_minilm
def test_the_query_path_gives_the_same_vectors_on_a_session_that_does_not_spin(
    minilm: LocalEmbeddings,
) -> None:
    """``embed_query`` (a search's few texts) runs its own ONNX session: no spinning
    threads, a fixed intra-op count; the vectors are the batch path's."""
    texts = ["Where does Maya live?", "Where does live?"]
    for query, batch in zip(minilm.embed_query(texts), minilm.embed(texts), strict=True):
        assert query == pytest.approx(batch, abs=1e-5)
    assert minilm.embed_query([]) == []
    options = minilm._latency_model().model.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.inter_op_num_threads == 1
    assert 1 <= options.intra_op_num_threads <= 2


@needs_minilm
def test_the_query_path_tokenizes_in_its_own_thread_as_the_batch_would(
    minilm: LocalEmbeddings,
) -> None:
    """The latency path encodes text by text (no tokenizer thread pool), padded as
    ``encode_batch`` pads: the same ids, masks and type ids, whatever the lengths."""
    model = minilm._latency_model()
    tokenizer = model.tokenizer
    for texts in (
        ["When did Caroline go to the support group?", "When did go to the support group?"],
        ["a", "a much longer text, with words and 123 numbers " * 20],
        ["only one"],
        ["", "x"],
    ):
        serial, batch = model.tokenize(texts), tokenizer.encode_batch(texts)
        for field in ("ids", "attention_mask", "type_ids"):
            assert [getattr(e, field) for e in serial] == [getattr(e, field) for e in batch]


@needs_minilm
def test_minilm_from_config_checks_the_dimension() -> None:
    embedder = make_embedder(Config(embed_provider="local", embed_model_dir=MINILM))
    assert embedder is not None
    # the folder is named after a model fastembed knows: it gets that model's name
    assert (embedder.dim, embedder.model_name) == (384, "sentence-transformers/all-MiniLM-L6-v2")
    with pytest.raises(DimensionMismatchError, match=r"384-dimensional.*embedding_dim is 256"):
        make_embedder(Config(embed_provider="local", embed_model_dir=MINILM, embedding_dim=256))


@needs_minilm
def test_an_unknown_export_is_loaded_with_its_own_pooling(tmp_path: Path) -> None:
    """A sentence-transformers export fastembed does not know is registered under the
    folder's name with the pooling its 1_Pooling/config.json names; same vectors."""
    folder = tmp_path / "my-minilm-copy"
    folder.mkdir()
    for item in MINILM.iterdir():
        (folder / item.name).symlink_to(item)
    copy = LocalEmbeddings(model_dir=folder)
    known = LocalEmbeddings(model_dir=MINILM)
    assert copy.model_name == "my-minilm-copy"
    texts = ["Maya has a cat named Miso.", "What pets does Maya have?"]
    assert copy.embed(texts)[1] == pytest.approx(known.embed(texts)[1], abs=1e-4)
