"""Embedding clients: the ``EmbeddingClient`` protocol, vectors from an
OpenAI-compatible ``/embeddings`` endpoint (``OpenAIEmbeddings``), and the embedder the
settings describe (``make_embedder``: that endpoint, a local model, or none). Errors as
in the table of ``hmem/extract/clients.py``; vector of the wrong size:
``DimensionMismatchError``.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, runtime_checkable

import numpy as np
import numpy.typing as npt

from hmem.config import Config
from hmem.errors import (
    ConfigError,
    DimensionMismatchError,
    ModelError,
    ModelNotConfiguredError,
    ModelOutputError,
)
from hmem.extract._transport import _model_error, _ModelClient, _Retry, _status_message
from hmem.extract.local_embed import LocalEmbeddings, unit_rows

if TYPE_CHECKING:
    # The SDK takes ~1 s to import; it is imported when a model client is first used,
    # so commands and processes that never call a model do not pay for it.
    from openai.types import CreateEmbeddingResponse

__all__ = ["EmbeddingClient", "OpenAIEmbeddings", "make_embedder"]

_log = logging.getLogger("hmem.embed")


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


class OpenAIEmbeddings(_ModelClient):
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
        super().__init__(
            base_url, api_key, timeout_s, _Retry(max_retries, backoff_base_s, backoff_max_s)
        )
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
