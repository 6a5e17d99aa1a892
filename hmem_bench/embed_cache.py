"""Embeddings cached on disk by text hash, so a rerun embeds nothing it has seen.

One SQLite file per model under the cache folder (``.hmem/bench-cache/`` by default):
the key is the SHA-256 of the text, the value its float32 vector.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hmem.extract.clients import EmbeddingClient

__all__ = ["CachedEmbedder"]

Matrix = npt.NDArray[np.float32]


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedEmbedder:
    """Wraps an ``EmbeddingClient``; ``matrix(texts)`` returns an (n, dim) float32 array."""

    def __init__(self, client: EmbeddingClient, cache_dir: str | Path, *, chunk: int = 256) -> None:
        self.client = client
        folder = Path(cache_dir)
        folder.mkdir(parents=True, exist_ok=True)
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in client.model_name)
        self.path = folder / f"{name}-{client.dim}.sqlite"
        self._db = sqlite3.connect(self.path)
        self._db.execute("CREATE TABLE IF NOT EXISTS vec (k TEXT PRIMARY KEY, v BLOB NOT NULL)")
        self._chunk = chunk
        self.computed = 0

    @property
    def dim(self) -> int:
        return self.client.dim

    def matrix(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Matrix:
        """Vectors for ``texts`` in order; ``progress(n)`` is called as n new texts embed."""
        keys = [_key(t) for t in texts]
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            query = f"SELECT k, v FROM vec WHERE k IN ({marks})"  # noqa: S608 - only placeholders
            found.update(self._db.execute(query, part).fetchall())
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        for start in range(0, len(missing), self._chunk):
            part = missing[start : start + self._chunk]
            vectors = np.asarray(self.client.embed(part), dtype=np.float32)
            rows = [(_key(t), v.tobytes()) for t, v in zip(part, vectors, strict=True)]
            self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)", rows)
            self._db.commit()
            found.update(rows)
            self.computed += len(part)
            if progress is not None:
                progress(len(part))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = np.frombuffer(found[k], dtype=np.float32)
        return out

    def missing(self, texts: Sequence[str]) -> int:
        """How many distinct texts are not cached yet (to size a progress bar)."""
        unique = list(dict.fromkeys(_key(t) for t in texts))
        have = 0
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            query = f"SELECT count(*) FROM vec WHERE k IN ({marks})"  # noqa: S608
            have += int(self._db.execute(query, part).fetchone()[0])
        return len(unique) - have

    def close(self) -> None:
        self._db.close()
