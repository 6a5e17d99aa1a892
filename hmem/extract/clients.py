"""OpenAI-compatible model clients: structured chat completions and embeddings.

Both clients speak the OpenAI HTTP API (OpenAI, Ollama, vLLM, llama.cpp, LM Studio)
through the official ``openai`` package with the package's own retries switched off:
hmem retries itself so that every failure lands in its one error tree::

    401 / 403                               ModelAuthError, never retried
    408, 429, 5xx, timeout, no connection   retried with jittered exponential backoff,
                                            then ModelUnavailableError
    any other 4xx, unreadable response      ModelError
    malformed or schema-violating JSON      one corrective retry, then ModelOutputError
                                            (``raw`` holds the last reply text)
    vector of the wrong size                DimensionMismatchError

The clients never read the environment: an absent ``base_url`` means the OpenAI API,
and an absent key is sent as a placeholder, which keyless local servers ignore. (The
``openai`` package itself still reads ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID``.)
"""

from __future__ import annotations

import base64
import json
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, TypeVar, cast, runtime_checkable

import numpy as np
import numpy.typing as npt
import pydantic

from hmem.config import Config
from hmem.errors import (
    ConfigError,
    DimensionMismatchError,
    ModelAuthError,
    ModelError,
    ModelNotConfiguredError,
    ModelOutputError,
    ModelUnavailableError,
)
from hmem.extract.local_embed import LocalEmbeddings, unit_rows

if TYPE_CHECKING:
    # The SDK takes ~1 s to import; it is imported when a model client is first used,
    # so commands and processes that never call a model do not pay for it.
    import openai
    from openai.types import CreateEmbeddingResponse
    from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
    from openai.types.chat.completion_create_params import ResponseFormat

__all__ = [
    "OPENAI_BASE_URL",
    "ChatClient",
    "EmbeddingClient",
    "OpenAIEmbeddings",
    "ResponseFormatMode",
    "Usage",
    "make_chat_client",
    "make_embedder",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
# The openai package refuses to start without a key; keyless local servers ignore it.
_PLACEHOLDER_KEY = "sk-no-key"
_RETRYABLE_STATUS = frozenset({408, 429})
_MAX_MESSAGE_CHARS = 300

ResponseFormatMode = Literal["auto", "json_schema", "json_object"]
M = TypeVar("M", bound=pydantic.BaseModel)
T = TypeVar("T")

_log = logging.getLogger("hmem.embed")
_jitter = random.Random()  # noqa: S311  # backoff jitter, not secrets


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens reported by the server and the number of completions received."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.calls + other.calls,
        )


# -- transport: one retry loop and one error mapping for every call -------------------


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        text: str = body["message"]
    else:
        text = exc.message
    return text[:_MAX_MESSAGE_CHARS]


def _retry_after_s(exc: openai.OpenAIError) -> float | None:
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return None
    try:
        return max(0.0, float(exc.response.headers.get("retry-after", "")))
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class _Retry:
    max_retries: int
    base_s: float
    max_s: float

    def run(self, call: Callable[[], T], what: str) -> T:
        """Call, retrying transient failures; map auth and exhaustion into hmem errors.

        Other HTTP errors propagate as ``openai.APIStatusError`` for the caller to judge.
        """
        import openai

        attempt = 0
        while True:
            last: openai.OpenAIError
            try:
                return call()
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise ModelAuthError(
                    f"{what}: the model service refused the credentials "
                    f"(HTTP {exc.status_code}: {_status_message(exc)}); check the API key"
                ) from exc
            except openai.APITimeoutError as exc:
                last, reason = exc, "timed out"
            except openai.APIConnectionError as exc:
                last, reason = exc, f"connection failed ({exc})"
            except openai.APIStatusError as exc:
                if exc.status_code not in _RETRYABLE_STATUS and exc.status_code < 500:
                    raise
                last, reason = exc, f"HTTP {exc.status_code}: {_status_message(exc)}"
            if attempt >= self.max_retries:
                raise ModelUnavailableError(
                    f"{what}: {reason} (gave up after {attempt + 1} attempts)"
                ) from last
            hinted = _retry_after_s(last)
            backoff = self.base_s * 2**attempt * _jitter.uniform(0.5, 1.0)
            time.sleep(min(self.max_s, backoff if hinted is None else hinted))
            attempt += 1


def _model_error(what: str, exc: openai.OpenAIError) -> ModelError:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return ModelError(f"{what}: HTTP {exc.status_code}: {_status_message(exc)}")
    return ModelError(f"{what}: unusable response from the model service ({exc})")


def _openai_client(base_url: str | None, api_key: str | None, timeout_s: float) -> openai.OpenAI:
    if base_url is None and not api_key:
        raise ModelNotConfiguredError(
            "an API key is required for the OpenAI API (set HMEM_LLM_API_KEY / "
            "HMEM_EMBED_API_KEY, or HMEM_LLM_BASE_URL / HMEM_EMBED_BASE_URL for another "
            "OpenAI-compatible endpoint)"
        )
    import openai

    return openai.OpenAI(
        base_url=base_url or OPENAI_BASE_URL,
        api_key=api_key or _PLACEHOLDER_KEY,
        timeout=timeout_s,
        max_retries=0,
    )


# -- chat ---------------------------------------------------------------------------


class _JsonSchemaUnsupported(Exception):
    """The server answered a json_schema request with 400: fall back to json_object."""


def _says_json_schema_unsupported(exc: openai.APIStatusError) -> bool:
    text = _status_message(exc).lower()
    return exc.status_code in (400, 422) and ("json_schema" in text or "response_format" in text)


def _strip_fences(raw: str) -> str:
    # Models in json_object mode sometimes wrap the object in a ```json fence.
    text = raw.strip()
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        text = text[text.index("\n") + 1 : -3]
    return text


def _describe(exc: pydantic.ValidationError) -> str:
    # Locations and messages only: the input may be private and is kept in ``raw``.
    parts = [
        f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
        for err in exc.errors(include_url=False, include_input=False, include_context=False)
    ]
    more = f" (+{len(parts) - 5} more)" if len(parts) > 5 else ""
    return "; ".join(parts[:5]) + more


class ChatClient:
    """Chat completions whose reply is one JSON object validated by a pydantic model."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        response_format: ResponseFormatMode = "auto",
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
    ) -> None:
        self.model = model
        self._client = _openai_client(base_url, api_key, timeout_s)
        self._retry = _Retry(max_retries, backoff_base_s, backoff_max_s)
        self._auto = response_format == "auto"
        self._format: Literal["json_schema", "json_object"] = (
            "json_object" if response_format == "json_object" else "json_schema"
        )

    @property
    def response_format(self) -> Literal["json_schema", "json_object"]:
        """The structured-output mode in use (``auto`` settles on one after a fallback)."""
        return self._format

    def complete_json(
        self, system: str, user: str, schema: type[M], *, name: str
    ) -> tuple[M, Usage]:
        """Ask at temperature 0 for one JSON object matching ``schema``; validate it.

        ``name`` names the response format (``[a-zA-Z0-9_-]{1,64}``) and the task in
        error messages. A malformed or schema-violating reply is retried once with a
        note of the error; usage covers every completion received.
        """
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        raw, usage = self._complete(messages, schema, name)
        try:
            return schema.model_validate_json(_strip_fences(raw)), usage
        except pydantic.ValidationError as exc:
            note = _describe(exc)
        retry: list[ChatCompletionMessageParam] = [
            *messages,
            {"role": "assistant", "content": raw},
            {
                "role": "user",
                "content": f"That reply could not be used ({note}). Reply again with only "
                "the JSON object, matching the requested schema.",
            },
        ]
        raw, more = self._complete(retry, schema, name)
        usage += more
        try:
            return schema.model_validate_json(_strip_fences(raw)), usage
        except pydantic.ValidationError as exc:
            error = ModelOutputError(
                f"{name}: the model's reply is not a valid {schema.__name__} after one retry "
                f"({_describe(exc)})"
            )
            error.raw = raw
            raise error from exc

    def _complete(
        self, messages: list[ChatCompletionMessageParam], schema: type[M], name: str
    ) -> tuple[str, Usage]:
        try:
            completion = self._request(self._format, messages, schema, name)
        except _JsonSchemaUnsupported:
            self._format = "json_object"  # for the client's lifetime
            completion = self._request("json_object", messages, schema, name)
        usage = completion.usage
        reply = Usage(
            usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0, 1
        )
        content = completion.choices[0].message.content if completion.choices else None
        return content or "", reply

    def _request(
        self,
        fmt: Literal["json_schema", "json_object"],
        messages: list[ChatCompletionMessageParam],
        schema: type[M],
        name: str,
    ) -> ChatCompletion:
        response_format: ResponseFormat
        if fmt == "json_schema":
            response_format = {
                "type": "json_schema",
                "json_schema": {
                    "name": name,
                    "schema": schema.model_json_schema(),
                    "strict": False,
                },
            }
        else:
            # json_object mode cannot carry the schema, so the prompt does.
            response_format = {"type": "json_object"}
            first = messages[0]
            described = (
                f"{first.get('content', '')}\n\nReply with one JSON object that conforms to "
                f"this JSON Schema:\n{json.dumps(schema.model_json_schema())}"
            )
            messages = [{"role": "system", "content": described}, *messages[1:]]
        what = f"chat completion {name!r} ({self.model})"
        import openai

        try:
            return self._retry.run(
                lambda: self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    temperature=0,
                    response_format=response_format,
                ),
                what,
            )
        except openai.APIStatusError as exc:
            if self._auto and fmt == "json_schema" and _says_json_schema_unsupported(exc):
                raise _JsonSchemaUnsupported from exc
            raise _model_error(what, exc) from exc
        except openai.OpenAIError as exc:
            raise _model_error(what, exc) from exc

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# -- embeddings ---------------------------------------------------------------------


def _vector(value: object, what: str) -> Sequence[float] | npt.NDArray[np.float32]:
    """One embedding as the server sent it: base64 little-endian float32, or a list."""
    if not isinstance(value, str):
        return cast(Sequence[float], value)
    try:
        raw = base64.b64decode(value, validate=True)
    except ValueError:
        raise ModelOutputError(f"{what} returned a vector that is not base64") from None
    if len(raw) % 4:
        raise ModelOutputError(f"{what} returned {len(raw)} bytes, not float32 values")
    return np.frombuffer(raw, dtype="<f4")


@runtime_checkable
class EmbeddingClient(Protocol):
    """Turns texts into L2-normalised vectors of ``dim`` floats, order preserved."""

    @property
    def dim(self) -> int: ...

    @property
    def model_name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def close(self) -> None: ...


class OpenAIEmbeddings:
    """Embeddings from an OpenAI-compatible ``/embeddings`` endpoint."""

    def __init__(
        self,
        *,
        model: str,
        dim: int,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        batch_size: int = 64,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
        request_dimensions: bool | None = None,
    ) -> None:
        """``request_dimensions`` sends ``dimensions=dim`` (shortened vectors); by default
        only for the ``text-embedding-3`` family, the models known to accept it."""
        if batch_size < 1:
            raise ConfigError(f"embed_batch_size must be at least 1, not {batch_size}")
        self._model = model
        self._dim = dim
        self._batch_size = batch_size
        self._client = _openai_client(base_url, api_key, timeout_s)
        self._retry = _Retry(max_retries, backoff_base_s, backoff_max_s)
        if request_dimensions is None:
            request_dimensions = model.startswith("text-embedding-3")
        self._request_dimensions = request_dimensions
        # Vectors are asked for as base64 float32, as OpenAI's own SDK asks by default: a
        # JSON list of floats costs the SDK a Python object per value (3 vectors of 384
        # floats: ~7 ms against ~3 ms here; 32: ~55 against ~8 ms). A server that refuses
        # base64 (400 / 422) is asked for floats from then on; one that ignores the field
        # answers floats, read as they come.
        self._encoding: Literal["base64", "float"] = "base64"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_name(self) -> str:
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One request per ``batch_size`` texts; vectors come back in the texts' order."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._embed_batch(list(texts[start : start + self._batch_size])))
        return vectors

    def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        what = f"embeddings ({self._model})"
        data = sorted(self._create(batch, what).data, key=lambda item: item.index)
        if len(data) != len(batch):
            raise ModelError(f"{what}: asked for {len(batch)} vectors, received {len(data)}")
        rows = [_vector(cast(object, item.embedding), what) for item in data]
        for row in rows:
            if len(row) != self._dim:
                raise DimensionMismatchError(
                    f"{what}: the model returned {len(row)}-dimensional vectors "
                    f"but embedding_dim is {self._dim}"
                )
        return unit_rows(rows, what)

    def _create(self, batch: list[str], what: str) -> CreateEmbeddingResponse:
        extra: dict[str, Any] = {"dimensions": self._dim} if self._request_dimensions else {}

        def ask(encoding: Literal["base64", "float"]) -> CreateEmbeddingResponse:
            return self._retry.run(
                lambda: self._client.embeddings.create(
                    model=self._model, input=batch, encoding_format=encoding, **extra
                ),
                what,
            )

        import openai

        try:
            try:
                return ask(self._encoding)
            except openai.APIStatusError as exc:
                if self._encoding != "base64" or exc.status_code not in (400, 422):
                    raise
                self._encoding = "float"  # for the client's lifetime
                _log.info(
                    "%s: the server refused base64 vectors (%s); asking for floats",
                    what,
                    _status_message(exc),
                )
                return ask("float")
        except openai.OpenAIError as exc:
            raise _model_error(what, exc) from exc

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# -- factories ----------------------------------------------------------------------


def make_chat_client(config: Config) -> ChatClient:
    """The chat client the settings describe."""
    key = config.llm_api_key
    return ChatClient(
        model=config.llm_model,
        base_url=config.llm_base_url,
        api_key=key.get_secret_value() if key else None,
        timeout_s=config.llm_timeout_s,
        max_retries=config.llm_max_retries,
        response_format=config.llm_response_format,
    )


def make_embedder(config: Config) -> EmbeddingClient | None:
    """The embedder the settings describe (an OpenAI-compatible endpoint or a local
    model), or None when ``embed_provider`` is 'none', or 'auto' and the local model
    cannot be had (then one warning says which variable to set)."""
    if config.embed_provider == "none":
        return None
    if config.embed_provider in ("auto", "local"):
        try:
            return LocalEmbeddings(
                config.embed_model,
                model_dir=config.embed_model_dir,
                cache_dir=config.embed_cache_dir,
                download=config.embed_download,
                batch_size=config.embed_batch_size,
                expected_dim=config.embedding_dim,
            )
        except ModelNotConfiguredError as exc:
            if config.embed_provider == "local":
                raise
            _log.warning("dense search is off: %s", exc, extra={"error": str(exc)})
            return None
    key = config.embed_api_key
    return OpenAIEmbeddings(
        model=config.embed_model or "text-embedding-3-small",
        dim=config.embedding_dim,
        base_url=config.embed_base_url,
        api_key=key.get_secret_value() if key else None,
        timeout_s=config.embed_timeout_s,
        batch_size=config.embed_batch_size,
        max_retries=config.llm_max_retries,
    )
