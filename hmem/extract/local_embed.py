"""Sentence embeddings from a local ONNX model folder, without torch.

The folder holds ``model.onnx`` (a transformer whose first output is the last hidden
state, or an already pooled sentence embedding) and its ``tokenizer.json``, as
exported from sentence-transformers models such as all-MiniLM-L6-v2. The embedding
is the mean of the token states over the attention mask, L2-normalised.
``onnxruntime`` and ``tokenizers`` are the optional ``hmem[local]`` extra and are only
imported when a model is loaded.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from hmem.errors import ConfigError, DimensionMismatchError

__all__ = ["LocalOnnxEmbeddings"]

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"


def _require(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"local embeddings need {module!r}, which is not installed: pip install 'hmem[local]'"
        ) from exc


def _pad_token(tokenizer: Any) -> tuple[int, str]:
    padding = tokenizer.padding
    if padding:
        return int(padding["pad_id"]), str(padding["pad_token"])
    for token in ("[PAD]", "<pad>"):
        token_id = tokenizer.token_to_id(token)
        if token_id is not None:
            return int(token_id), token
    return 0, "[PAD]"


class LocalOnnxEmbeddings:
    """An ``EmbeddingClient`` running a sentence-embedding model with onnxruntime."""

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        *,
        batch_size: int = 64,
        max_tokens: int = 256,
        expected_dim: int | None = None,
        threads: int | None = None,
    ) -> None:
        """Load the model; ``expected_dim`` (the configured ``embedding_dim``) is checked
        against the model's output size, ``threads`` caps onnxruntime's intra-op threads."""
        folder = Path(model_dir)
        if not folder.is_dir():
            raise ConfigError(f"embedding model folder {folder} does not exist")
        missing = [name for name in (MODEL_FILE, TOKENIZER_FILE) if not (folder / name).is_file()]
        if missing:
            raise ConfigError(
                f"{folder} is not a sentence-embedding model folder: missing "
                f"{' and '.join(missing)} (it needs {MODEL_FILE} and {TOKENIZER_FILE})"
            )
        if batch_size < 1:
            raise ConfigError(f"embed_batch_size must be at least 1, not {batch_size}")
        ort = _require("onnxruntime")
        tokenizers = _require("tokenizers")

        self._model_name = folder.resolve().name
        self._batch_size = batch_size
        try:
            tokenizer = tokenizers.Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        except Exception as exc:
            raise ConfigError(f"cannot read {folder / TOKENIZER_FILE}: {exc}") from exc
        pad_id, pad_token = _pad_token(tokenizer)
        tokenizer.enable_truncation(max_length=max_tokens)
        # Pad to the longest text of each batch, not to the file's fixed length.
        tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token)
        self._tokenizer = tokenizer

        options = ort.SessionOptions()
        options.log_severity_level = 3  # errors only: no warnings on stderr
        if threads is not None:
            options.intra_op_num_threads = threads
        try:
            self._session = ort.InferenceSession(
                str(folder / MODEL_FILE), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise ConfigError(f"cannot load {folder / MODEL_FILE}: {exc}") from exc
        self._input_names = {node.name for node in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._input_names:
            raise ConfigError(
                f"{folder / MODEL_FILE} must take input_ids and attention_mask, "
                f"not {sorted(self._input_names)}"
            )
        output = self._session.get_outputs()[0]
        self._output_name: str = output.name
        size = output.shape[-1]
        self._dim = size if isinstance(size, int) else len(self._embed_batch(["probe"])[0])
        if expected_dim is not None and self._dim != expected_dim:
            raise DimensionMismatchError(
                f"the local model {self._model_name!r} makes {self._dim}-dimensional vectors "
                f"but embedding_dim is {expected_dim}"
            )

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_name(self) -> str:
        return self._model_name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit vectors in the texts' order, computed ``batch_size`` texts at a time."""
        # Batching texts of similar length keeps padding, hence wasted work, small.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            for index, vector in zip(
                chunk, self._embed_batch([texts[i] for i in chunk]), strict=True
            ):
                vectors[index] = vector
        return vectors

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds: dict[str, npt.NDArray[np.int64]] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self._session.run([self._output_name], feeds)
        states = np.asarray(hidden, dtype=np.float32)
        if states.ndim == 3:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        else:  # the model already pools
            pooled = states
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: list[list[float]] = (pooled / np.maximum(norms, 1e-12)).tolist()
        return unit

    def close(self) -> None:
        """Nothing to release beyond what garbage collection frees; kept for the protocol."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
