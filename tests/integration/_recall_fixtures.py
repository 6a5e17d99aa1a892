"""Shared pieces of the read-path integration tests: a real local embedding model."""

from __future__ import annotations

from pathlib import Path

import pytest

from hmem.extract.local_embed import LocalOnnxEmbeddings

MODEL = Path("/work/shared/models/all-MiniLM-L6-v2-onnx")


def local_embedder() -> LocalOnnxEmbeddings:
    if not MODEL.is_dir():
        pytest.skip(f"the local embedding model {MODEL} is absent; these tests need real vectors")
    try:
        return LocalOnnxEmbeddings(MODEL, threads=1, expected_dim=384)
    except Exception as exc:  # onnxruntime/tokenizers missing: the hmem[local] extra
        pytest.skip(f"cannot load {MODEL}: {exc}")
