"""The big-user benchmark's corpus of real sentences (hmem_bench.corpus): extraction,
dedupe, a fixed order, and the on-disk cache; a fake embedder, no model, no network."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hmem_bench.corpus import plausible, real_corpus, sentences, split_sentences, texts_of_file
from hmem_bench.latency import sentence_entity

PY = '''"""Module docstring that says what the module does for its users.

Second paragraph of the docstring is also a sentence we keep.
"""

# A comment that runs over
# two lines and explains the next function.
def f(x):
    return {"key": x}  # not prose
'''


class HashEmbedder:
    """Deterministic unit vectors from a text's hash; counts what it embeds."""

    dim = 8
    model_name = "fake-hash"

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded += len(texts)
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
            v = np.random.default_rng(seed).standard_normal(self.dim)
            out.append((v / np.linalg.norm(v)).tolist())
        return out

    def close(self) -> None:
        pass


def _tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text(PY)
    (root / "pkg" / "README.md").write_text(
        "# Title\n\nThe package reads files and writes them back again. "
        "It was written by Maya Lopez in Berlin last year.\n\nx = 1\n"
    )
    (root / "data").mkdir()
    (root / "data" / "chat.jsonl").write_text(
        json.dumps({"turns": [{"text": "I moved to Lisbon with my sister in May."}]}) + "\n"
    )
    (root / "man" / "man1").mkdir(parents=True)
    with gzip.open(root / "man" / "man1" / "tool.1.gz", "wt") as fh:
        fh.write(".TH TOOL 1\n.SH NAME\ntool \\- does things\n.PP\nThe \\fBtool\\fR command "
                 "copies every file it is given.\n")  # fmt: skip
    return root


def test_split_and_plausible() -> None:
    assert split_sentences("One two three four five. Six seven  eight\nnine ten!") == [
        "One two three four five.",
        "Six seven eight nine ten!",
    ]
    assert plausible("The package reads files and writes them back.")
    assert not plausible("Too short here.")
    assert not plausible("return {x: y} if a[0] == b[1] else c_d.")
    assert not plausible("see https://example.org for the five details.")
    assert not plausible("lower case first word is not kept here.")


def test_texts_of_files(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    py = list(texts_of_file(root / "pkg" / "mod.py"))
    assert any("Module docstring" in t for t in py)
    assert any("two lines and explains" in t for t in py)
    man = " ".join(texts_of_file(root / "man" / "man1" / "tool.1.gz"))
    assert "The tool command copies every file it is given." in man


def test_sentences_are_distinct_and_ordered(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "pkg" / "copy.md").write_text("THE PACKAGE reads files and writes them back again.\n")
    found = sentences([root / "data", root / "man", root / "pkg"])
    assert found == sentences([root / "data", root / "man", root / "pkg"])
    assert found[0] == "I moved to Lisbon with my sister in May."
    assert "The tool command copies every file it is given." in found
    assert "It was written by Maya Lopez in Berlin last year." in found
    assert sum("reads files and writes" in s for s in found) == 1  # case-folded dedupe
    assert not any("return" in s for s in found)


def test_real_corpus_is_cached(tmp_path: Path) -> None:
    root = _tree(tmp_path / "src")
    roots = [root]
    model = HashEmbedder()
    lines: list[str] = []
    first = real_corpus(4, tmp_path / "cache", lambda: model, roots=roots, say=lines.append)
    assert len(first) == 4 and first.vectors.shape == (4, 8)
    assert model.embedded == 4
    assert np.allclose(np.linalg.norm(first.vectors, axis=1), 1.0, atol=1e-5)
    want = np.asarray(HashEmbedder().embed(first.texts), dtype=np.float32)
    assert np.allclose(first.vectors, want, atol=1e-6)  # row i is texts[i]'s vector
    again = real_corpus(
        4, tmp_path / "cache", lambda: HashEmbedder(), roots=roots, say=lines.append
    )
    assert again.texts == first.texts
    assert np.array_equal(again.vectors, first.vectors)
    assert any("sentences and vectors loaded from" in line for line in lines)  # no rescan
    (root / "pkg" / "README.md").write_text("A new file says something else entirely now.\n")
    lines.clear()
    changed = real_corpus(4, tmp_path / "cache", lambda: model, roots=roots, say=lines.append)
    assert any("distinct sentences found" in line for line in lines)  # files changed: rescan
    assert len(changed) == 4
    small = real_corpus(100, tmp_path / "cache", lambda: model, roots=roots, say=lines.append)
    assert len(small) < 100 and any("fewer than" in line for line in lines)
    assert len(small) >= 4


def test_sentence_entity() -> None:
    assert sentence_entity("It was written by Maya Lopez in Berlin.") == "maya"
    assert sentence_entity("The tool copies every file it is given.") is None
    assert sentence_entity("Use the API of NumPy here, not the other one.") is None
