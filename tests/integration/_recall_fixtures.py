"""Shared pieces of the read-path integration tests: a real local embedding model."""

from __future__ import annotations

from pathlib import Path

import pytest

from hmem.extract.local_embed import LocalEmbeddings

MODEL = Path(__file__).resolve().parents[3] / "shared" / "models" / "all-MiniLM-L6-v2-onnx"


def local_embedder() -> LocalEmbeddings:
    if not MODEL.is_dir():
        pytest.skip(f"the local embedding model {MODEL} is absent; these tests need real vectors")
    try:
        return LocalEmbeddings(model_dir=MODEL, threads=1, expected_dim=384)
    except Exception as exc:  # fastembed missing
        pytest.skip(f"cannot load {MODEL}: {exc}")
