"""The transport both model clients share (``hmem/extract/clients.py``, chat;
``hmem/extract/embeddings.py``): one OpenAI SDK client per service with the SDK's own
retries off, one retry loop, one mapping of failures into hmem's error tree (the table
in ``clients.py``), and the usage a completion reports.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Self, TypeVar

from hmem.errors import (
    ModelAuthError,
    ModelError,
    ModelNotConfiguredError,
    ModelUnavailableError,
)

if TYPE_CHECKING:
    # The SDK takes ~1 s to import; it is imported when a model client is first used,
    # so commands and processes that never call a model do not pay for it.
    import openai

__all__ = ["OPENAI_BASE_URL", "Usage"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
# The openai package refuses to start without a key; keyless local servers ignore it.
_PLACEHOLDER_KEY = "sk-no-key"
_RETRYABLE_STATUS = frozenset({408, 429})
_MAX_MESSAGE_CHARS = 300

T = TypeVar("T")

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


class _ModelClient:
    """An OpenAI-compatible endpoint's HTTP pool and retry policy, closed with the
    client (``with``): what the chat and embedding clients share."""

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        timeout_s: float,
        retry: _Retry,
    ) -> None:
        self._client = _openai_client(base_url, api_key, timeout_s)
        self._retry = retry

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
