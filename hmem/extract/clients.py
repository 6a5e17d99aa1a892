"""OpenAI-compatible model clients: structured chat completions here, embeddings in
``hmem/extract/embeddings.py`` (named here too), the transport they share in
``hmem/extract/_transport.py``.

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

import json
from typing import TYPE_CHECKING, Literal, TypeVar

import pydantic

from hmem.config import Config
from hmem.errors import ModelOutputError
from hmem.extract._transport import (
    OPENAI_BASE_URL,
    Usage,
    _model_error,
    _ModelClient,
    _Retry,
    _status_message,
)
from hmem.extract.embeddings import EmbeddingClient, OpenAIEmbeddings, make_embedder

if TYPE_CHECKING:
    # The SDK takes ~1 s to import; it is imported when a model client is first used,
    # so commands and processes that never call a model do not pay for it.
    import openai
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

ResponseFormatMode = Literal["auto", "json_schema", "json_object"]
M = TypeVar("M", bound=pydantic.BaseModel)


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


class ChatClient(_ModelClient):
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
        super().__init__(
            base_url, api_key, timeout_s, _Retry(max_retries, backoff_base_s, backoff_max_s)
        )
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
