"""Sentence embeddings on this machine with fastembed (ONNX, no torch).

The default model is fastembed's own default, ``BAAI/bge-small-en-v1.5`` (384-d), taken
from fastembed's cache or downloaded once into it. A model folder
(``HMEM_EMBED_MODEL_DIR``) is loaded as it is, with no download: a folder of a model
fastembed knows (named by ``embed_model``, or by the folder itself, e.g.
``all-MiniLM-L6-v2-onnx``) gets fastembed's pooling for it; any other sentence-transformers
ONNX export is registered as a custom model, with the pooling its ``1_Pooling/config.json``
names. ``fastembed`` is imported only when a model is loaded.

Two paths, chosen by the caller: ``embed`` (batches: fastembed's session, every core,
threads that spin between runs) and ``embed_query`` (a search's one or two texts: a
second ONNX session over the same model file, ``query_threads`` intra-op threads, one
inter-op, no spinning). fastembed exposes no session options beyond its thread count,
so that session is built here with onnxruntime; it shares fastembed's tokenizer and
pooling, so both paths give the same vectors. The spinning threads of a throughput
session keep a core busy for a while after each run, which is what a search's next
steps (the Bolt round trip, ranking) paid for.
"""

from __future__ import annotations

import copy
import importlib
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Self

import numpy as np

from hmem.errors import (
    ConfigError,
    DimensionMismatchError,
    ModelNotConfiguredError,
    ModelOutputError,
)

__all__ = ["DEFAULT_LOCAL_MODEL", "LocalEmbeddings"]

DEFAULT_LOCAL_MODEL = "BAAI/bge-small-en-v1.5"
_MODEL_FILES = ("model.onnx", "onnx/model.onnx", "model_optimized.onnx", "model_quantized.onnx")
_log = logging.getLogger("hmem.embed")
# A failed download is remembered for this long in the cache folder, so that every command
# of an offline machine does not spend seconds retrying it (delete the marker to retry now).
DOWNLOAD_RETRY_AFTER_S = 3600.0


def _failure_marker(cache_dir: str, name: str) -> Path:
    return Path(cache_dir) / f".hmem-download-failed-{name.replace('/', '--')}"


def _recent_failure(marker: Path, now: float) -> str | None:
    """What the last failed download said, if it failed less than the retry delay ago."""
    try:
        if now - marker.stat().st_mtime < DOWNLOAD_RETRY_AFTER_S:
            return marker.read_text(encoding="utf-8").strip() or "download failed"
    except OSError:
        pass
    return None


def _fastembed() -> ModuleType:
    try:
        module = importlib.import_module("fastembed")
    except ImportError as exc:
        raise ModelNotConfiguredError(
            "local embeddings need 'fastembed', which is not installed: pip install fastembed"
        ) from exc
    # fastembed logs every failed download attempt through loguru; hmem says it once.
    importlib.import_module("loguru").logger.disable("fastembed")
    return module


def _known(fastembed: ModuleType, name: str) -> dict[str, Any] | None:
    wanted = name.lower()
    for model in fastembed.TextEmbedding.list_supported_models():
        full = str(model["model"]).lower()
        if wanted in (full, full.rsplit("/", 1)[-1]):
            return dict(model)
    return None


def _remember_failure(marker: Path, said: str) -> None:
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(said + "\n", encoding="utf-8")
    except OSError:  # a read-only cache: the next command retries, nothing worse
        _log.debug("cannot record the failed download in %s", marker)


def _folder_model_name(folder: Path) -> str:
    name = folder.resolve().name
    for suffix in ("-onnx-q", "-onnx"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _pooling(folder: Path) -> str:
    """A sentence-transformers export's pooling: 'MEAN' (the default) or 'CLS'."""
    config = folder / "1_Pooling" / "config.json"
    if not config.is_file():
        return "MEAN"
    data = json.loads(config.read_text())
    mode = str(data.get("pooling_mode", "")).lower()
    if mode == "cls" or data.get("pooling_mode_cls_token"):
        return "CLS"
    return "MEAN"


class LocalEmbeddings:
    """An ``EmbeddingClient`` running a sentence-embedding model with fastembed."""

    def __init__(
        self,
        model: str | None = None,
        *,
        model_dir: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        download: bool = True,
        batch_size: int = 64,
        expected_dim: int | None = None,
        threads: int | None = None,
        query_threads: int | None = None,
    ) -> None:
        """Load ``model`` (default bge-small) from ``model_dir``, else from fastembed's
        cache in ``cache_dir``, else download it there when ``download`` is set.
        ``ModelNotConfiguredError`` says which variable to set when none of these works.
        ``threads``: the batch path's (fastembed's default: every core);
        ``query_threads``: ``embed_query``'s (default: up to 2; more costs a short
        text more in waking them than they save)."""
        if batch_size < 1:
            raise ConfigError(f"embed_batch_size must be at least 1, not {batch_size}")
        fastembed = _fastembed()
        self._batch_size = batch_size
        options: dict[str, Any] = {"threads": threads}
        if cache_dir is not None:
            options["cache_dir"] = str(Path(cache_dir).expanduser())
        if model_dir is not None:
            folder = Path(model_dir).expanduser()
            if not folder.is_dir():
                raise ConfigError(f"embedding model folder {folder} does not exist")
            name = model or _folder_model_name(folder)
            self._model = self._from_folder(fastembed, name, folder, options)
        else:
            name = model or DEFAULT_LOCAL_MODEL
            self._model = self._from_cache(fastembed, name, options, download=download)
        self._model_name: str = self._model.model_name
        self._query_threads = query_threads or min(2, os.cpu_count() or 1)
        self._query_model: Any = None
        self._query_lock = threading.Lock()
        self._dim = len(self.embed(["probe"])[0])
        if expected_dim is not None and self._dim != expected_dim:
            raise DimensionMismatchError(
                f"the local model {self._model_name!r} makes {self._dim}-dimensional vectors "
                f"but embedding_dim is {expected_dim}"
            )

    @staticmethod
    def _from_folder(
        fastembed: ModuleType, name: str, folder: Path, options: dict[str, Any]
    ) -> Any:
        files = [f for f in _MODEL_FILES if (folder / f).is_file()]
        if not files or not (folder / "tokenizer.json").is_file():
            raise ConfigError(
                f"{folder} is not a sentence-embedding model folder: it needs an ONNX model "
                f"({' or '.join(_MODEL_FILES)}) and tokenizer.json"
            )
        known = _known(fastembed, name)
        if known is not None and (folder / known["model_file"]).is_file():
            name = known["model"]
        else:
            # An export fastembed does not know: registered once per process under its name.
            description = fastembed.common.model_description
            if _known(fastembed, name) is None:
                config = (
                    json.loads((folder / "config.json").read_text())
                    if (folder / "config.json").is_file()
                    else {}
                )
                fastembed.TextEmbedding.add_custom_model(
                    model=name,
                    pooling=description.PoolingType(_pooling(folder)),
                    normalization=True,
                    sources=description.ModelSource(hf=name),
                    dim=int(config.get("hidden_size", 0)),
                    model_file=files[0],
                )
        try:
            return fastembed.TextEmbedding(name, specific_model_path=str(folder), **options)
        except Exception as exc:
            raise ConfigError(f"cannot load the embedding model in {folder}: {exc}") from exc

    @staticmethod
    def _from_cache(
        fastembed: ModuleType, name: str, options: dict[str, Any], *, download: bool
    ) -> Any:
        known = _known(fastembed, name)
        if known is None:
            raise ConfigError(
                f"fastembed has no model {name!r}; set HMEM_EMBED_MODEL_DIR to its folder "
                "or pick one of fastembed's models"
            )
        name = known["model"]
        try:
            return fastembed.TextEmbedding(name, local_files_only=True, **options)
        except Exception as cached_exc:
            cache_miss: Exception = cached_exc
        if download:
            cache = str(
                importlib.import_module("fastembed.common.utils").define_cache_dir(
                    options.get("cache_dir")
                )
            )
            marker = _failure_marker(cache, name)
            said = _recent_failure(marker, time.time())
            if said is not None:
                raise ModelNotConfiguredError(
                    f"the embedding model {name} is not in fastembed's cache and its download "
                    f"failed less than {DOWNLOAD_RETRY_AFTER_S / 3600:g} h ago ({said}; delete "
                    f"{marker} to retry now): set HMEM_EMBED_MODEL_DIR to a local model folder "
                    "(or HMEM_EMBED_PROVIDER=openai with HMEM_EMBED_BASE_URL)"
                ) from cache_miss
            # One attempt (fastembed's own loop retries for ~40 s when there is no network).
            embedding = fastembed.TextEmbedding
            for impl in embedding.EMBEDDINGS_REGISTRY:
                if any(m.model.lower() == name.lower() for m in impl._list_supported_models()):
                    try:
                        impl.download_model(impl._get_model_description(name), cache, retries=1)
                        loaded = embedding(name, local_files_only=True, **options)
                    except Exception as exc:
                        cache_miss = exc
                        _remember_failure(marker, str(exc).splitlines()[0][:120])
                    else:
                        marker.unlink(missing_ok=True)
                        return loaded
                    break
        raise ModelNotConfiguredError(
            f"the embedding model {name} is not in fastembed's cache and could not be "
            f"downloaded ({str(cache_miss).splitlines()[0][:120]}): set HMEM_EMBED_MODEL_DIR "
            "to a local model folder (or HMEM_EMBED_PROVIDER=openai with HMEM_EMBED_BASE_URL)"
        ) from cache_miss

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_name(self) -> str:
        return self._model_name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit vectors in the texts' order."""
        if not texts:
            return []
        vectors = list(self._model.embed(list(texts), batch_size=self._batch_size))
        return unit_rows(vectors, f"the local embedding model {self.model_name}")

    def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """``embed`` on the latency path: for a search's few texts (see the module)."""
        if not texts:
            return []
        model = self._query_model or self._latency_model()
        output = model.onnx_embed(list(texts))
        vectors = list(model._post_process_onnx_output(output))
        return unit_rows(vectors, f"the local embedding model {self.model_name}")

    def _latency_model(self) -> Any:
        """fastembed's model object with its session swapped for a latency-configured
        one over the same file: fastembed's tokenizer, input names and pooling stay."""
        with self._query_lock:
            if self._query_model is not None:
                return self._query_model
            ort = importlib.import_module("onnxruntime")
            inner = self._model.model
            session = inner.model
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = self._query_threads
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            # Threads that spin after a run hold a core the rest of the search needs.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            path = session._model_path  # what fastembed loaded (it may have linked it)
            latency = copy.copy(inner)
            latency.model = ort.InferenceSession(
                path, sess_options=options, providers=session.get_providers()
            )
            if latency.tokenizer is not None and latency.tokenizer.padding is not None:
                latency.tokenize = _serial_tokenize(latency.tokenizer)
            self._query_model = latency
            return latency

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


def _serial_tokenize(tokenizer: Any) -> Any:
    """fastembed's ``tokenize`` (``encode_batch``, padded to the longest text) done text
    by text in this thread: ``encode_batch`` hands even two texts to the tokenizer's
    thread pool, whose wake-up cost a search ~4 ms on a busy machine (cProfile, 100
    LoCoMo questions); the same ids and masks (tests/unit/extract)."""
    padding = dict(tokenizer.padding)

    def tokenize(documents: list[str], **_: Any) -> list[Any]:
        encoded = [tokenizer.encode(text) for text in documents]
        width = max((len(e.ids) for e in encoded), default=0)
        multiple = padding.get("pad_to_multiple_of")
        if multiple:
            width = -(-width // multiple) * multiple
        width = padding.get("length") or width
        for e in encoded:
            e.pad(
                width,
                direction=padding["direction"],
                pad_id=padding["pad_id"],
                pad_type_id=padding["pad_type_id"],
                pad_token=padding["pad_token"],
            )
        return encoded

    return tokenize


def unit_rows(vectors: Any, what: str) -> list[list[float]]:
    """Each row L2-normalised, in double; a row with NaN, Infinity or no length is the
    model's fault (``ModelOutputError``): stored, it would break every scan of its user."""
    matrix = np.asarray(vectors, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if not (np.isfinite(matrix).all() and np.isfinite(norms).all() and (norms > 0).all()):
        raise ModelOutputError(f"{what} returned a vector with NaN, Infinity or zero length")
    unit: list[list[float]] = (matrix / norms).tolist()
    return unit
