"""A corpus of real English sentences found on this machine, for big-user benchmarks.

No data set of 100,000 sentences ships with hmem and the machines it is measured on have
no internet, so the latency benchmark's ``--big-texts real`` shape takes its sentences
from files every such machine has: the docstrings and comments of the Python packages
installed beside hmem (site-packages), their ``.md``/``.rst``/``.txt`` files, the English
man pages (``/usr/share/man/man*``), and the LoCoMo/BEAM conversations when
``--data-dir`` has them. Sentences of 5-60 words that read as prose (mostly letters, a
capital first, a full stop last) are kept once each (case-folded), in a fixed order
(sorted files, then a seeded shuffle), so the same machine gives the same corpus.

``real_corpus`` embeds them with a local model and keeps the texts and the float32
matrix under ``cache_dir`` (``texts.txt`` and ``vectors.npy``, named by a digest of the
texts and the model), so a rerun loads them instead of embedding again; the embedding
itself goes through ``CachedEmbedder`` (by text hash), so an interrupted run resumes.

    python -m hmem_bench.corpus --cache .hmem/bench-corpus --size 101000   # build and embed
"""

# ruff: noqa: S311  (a reproducible sample, not secrets)

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hmem.extract.clients import EmbeddingClient
from hmem_bench.embed_cache import CachedEmbedder

__all__ = [
    "Corpus",
    "default_roots",
    "plausible",
    "real_corpus",
    "sentences",
    "split_sentences",
    "texts_of_file",
]

MIN_WORDS = 5
MAX_WORDS = 60
SEED = 20261130
TEXT_SUFFIXES = (".md", ".rst", ".txt")

_DOCSTRING = re.compile(r'("""|\'\'\')(.*?)\1', re.DOTALL)
_COMMENT = re.compile(r"^[ \t]*#[ \t]?(.*)$", re.MULTILINE)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SPACE = re.compile(r"\s+")
_ROFF_ESCAPE = re.compile(r"\\f[BIRP]|\\f\(..|\\&|\\\(..|\\[*][a-zA-Z]|\\s[-+]?\d")
_CODEISH = set("{}[]<>=_`|\\/@$%^~*#;")


def split_sentences(block: str) -> list[str]:
    """A paragraph's sentences: whitespace collapsed, split after . ! or ? before a capital."""
    text = _SPACE.sub(" ", block).strip()
    return [s.strip() for s in _SPLIT.split(text) if s.strip()]


def plausible(sentence: str) -> bool:
    """Prose, not code: 5-60 words, a capital first and . ! ? last, at least 80 % of its
    non-space characters letters, at most two code-like characters, no URL."""
    words = sentence.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return False
    if not sentence[0].isupper() or sentence[-1] not in ".!?":
        return False
    if "://" in sentence or "..." in sentence or ">>>" in sentence:
        return False
    chars = [c for c in sentence if not c.isspace()]
    letters = sum(c.isalpha() for c in chars)
    if letters < 0.8 * len(chars):
        return False
    return sum(c in _CODEISH for c in chars) <= 2


def _roff(text: str) -> Iterator[str]:
    """A man page's running text: request lines (``.XX``) end a paragraph, escapes dropped."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith((".", "'")):
            if line[:3] in (".PP", ".LP", ".SH", ".SS", ".TP", ".IP", ".P", ".br", ".sp"):
                yield " ".join(lines)
                lines = []
            continue
        lines.append(_ROFF_ESCAPE.sub("", line).replace("\\-", "-").replace("\\e", "\\"))
    yield " ".join(lines)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in sorted(value):
            yield from _strings(value[key])
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def texts_of_file(path: Path) -> Iterator[str]:
    """The prose blocks of one file: a Python file's docstrings and comment runs, a text
    file's paragraphs, a man page's running text, every string of a JSON-lines file."""
    name = path.name
    try:
        if name.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
                raw = fh.read()
        else:
            raw = path.read_text(encoding="utf-8", errors="replace")
    except (OSError, EOFError, gzip.BadGzipFile):
        return
    if name.endswith(".py"):
        for match in _DOCSTRING.finditer(raw):
            yield from re.split(r"\n\s*\n", match.group(2))
        run: list[str] = []
        last = -2
        for match in _COMMENT.finditer(raw):
            line = raw.count("\n", 0, match.start())
            if line != last + 1 and run:
                yield " ".join(run)
                run = []
            run.append(match.group(1))
            last = line
        if run:
            yield " ".join(run)
    elif name.endswith(".jsonl"):
        for row in raw.splitlines():
            if row.strip():
                yield from _strings(json.loads(row))
    elif "/man" in str(path.parent):
        yield from _roff(raw)
    else:
        yield from re.split(r"\n\s*\n", raw)


def default_roots(data_dir: Path | None = None) -> list[Path]:
    """Where the sentences come from: this interpreter's site-packages, the English man
    pages, and ``data_dir`` (LoCoMo/BEAM JSON lines) when given and present."""
    roots = [Path(sysconfig.get_paths()["purelib"])]
    roots += sorted(Path("/usr/share/man").glob("man[1-8]"))
    if data_dir is not None and data_dir.is_dir():
        roots.append(data_dir)
    return [r for r in roots if r.is_dir()]


def _files(roots: Iterable[Path]) -> Iterator[Path]:
    for root in roots:
        for path in sorted(root.rglob("*")):
            name = path.name
            wanted = name.endswith((".py", ".jsonl", *TEXT_SUFFIXES)) or (
                "/man" in str(path.parent) and name.endswith(".gz")
            )
            if wanted and path.is_file():
                yield path


def sentences(roots: Iterable[Path]) -> list[str]:
    """Every distinct plausible sentence under ``roots`` (files in sorted order, the
    first spelling of each case-folded sentence kept), before any shuffle."""
    seen: set[str] = set()
    out: list[str] = []
    for path in _files(roots):
        for block in texts_of_file(path):
            for sentence in split_sentences(block):
                key = sentence.casefold()
                if key not in seen and plausible(sentence):
                    seen.add(key)
                    out.append(sentence)
    return out


Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Corpus:
    """Sentences and their unit vectors (row i is the embedding of ``texts[i]``)."""

    texts: list[str]
    vectors: Matrix

    def __len__(self) -> int:
        return len(self.texts)


def _digest(texts: Sequence[str], model: str) -> str:
    h = hashlib.sha256(model.encode())
    for text in texts:
        h.update(text.encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()[:16]


def real_corpus(
    size: int,
    cache_dir: Path,
    client_factory: Callable[[], EmbeddingClient],
    *,
    roots: Sequence[Path] | None = None,
    model_name: str = "all-MiniLM-L6-v2-onnx",
    seed: int = SEED,
    say: Callable[[str], None] = print,
    batch: int = 512,
) -> Corpus:
    """``size`` sentences (a seeded shuffle of ``sentences(roots)``) and their vectors,
    from the cache when there, else embedded now (shortest first, ``batch`` at a time,
    with progress) and saved. Fewer when the machine has fewer sentences (said)."""
    roots = list(roots if roots is not None else default_roots())
    # The files' names, sizes and times name the selection: an unchanged machine finds
    # its texts and vectors without reading a file again.
    files = hashlib.sha256(f"{size} {seed} {model_name}".encode())
    for path in _files(roots):
        stat = path.stat()
        files.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    known = Path(cache_dir) / "selections" / f"{files.hexdigest()[:24]}.txt"
    if known.is_file():
        folder = Path(cache_dir) / known.read_text().strip()
        if (folder / "vectors.npy").is_file() and (folder / "texts.txt").is_file():
            texts = (folder / "texts.txt").read_text(encoding="utf-8").splitlines()
            vectors = np.load(folder / "vectors.npy")
            if vectors.shape[0] == len(texts):
                say(f"corpus: {len(texts):,} sentences and vectors loaded from {folder}")
                return Corpus(texts, vectors.astype(np.float32, copy=False))
    started = time.monotonic()
    found = sentences(roots)
    say(f"corpus: {len(found):,} distinct sentences found in {time.monotonic() - started:.0f}s")
    random.Random(seed).shuffle(found)
    if len(found) < size:
        say(f"corpus: only {len(found):,} sentences here, fewer than the {size:,} asked")
    texts = found[:size]
    folder = Path(cache_dir) / f"{model_name}-{len(texts)}-{_digest(texts, model_name)}"

    def remember() -> None:
        known.parent.mkdir(parents=True, exist_ok=True)
        known.write_text(folder.name + "\n")

    if (folder / "vectors.npy").is_file():
        vectors = np.load(folder / "vectors.npy")
        if vectors.shape[0] == len(texts):
            say(f"corpus: {len(texts):,} vectors loaded from {folder}")
            if not (folder / "texts.txt").is_file():
                (folder / "texts.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
            remember()
            return Corpus(texts, vectors.astype(np.float32, copy=False))
    client = client_factory()
    cache = CachedEmbedder(client, Path(cache_dir), chunk=batch)
    todo = cache.missing(texts)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # less padding per batch
    done = 0
    started = time.monotonic()

    def progress(n: int) -> None:
        nonlocal done
        done += n
        rate = done / max(time.monotonic() - started, 1e-9)
        say(f"  embedded {done:>7,}/{todo:,}  {rate:,.0f}/s  eta {(todo - done) / rate:,.0f}s")

    say(f"corpus: embedding {todo:,} of {len(texts):,} sentences with {client.model_name}")
    by_length = cache.matrix([texts[i] for i in order], progress=progress)
    cache.close()
    took = time.monotonic() - started
    if todo:
        say(f"corpus: embedded {todo:,} in {took:,.0f}s ({todo / max(took, 1e-9):,.0f}/s)")
    vectors = np.empty_like(by_length)
    vectors[order] = by_length
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    folder.mkdir(parents=True, exist_ok=True)
    np.save(folder / "vectors.npy", vectors)
    (folder / "texts.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    remember()
    say(f"corpus: saved to {folder}")
    return Corpus(texts, vectors)


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hmem_bench.corpus", description=__doc__)
    parser.add_argument("--cache", default=".hmem/bench-corpus")
    parser.add_argument("--size", type=int, default=101_000)
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--model-dir", default="../shared/models/all-MiniLM-L6-v2-onnx")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--count-only", action="store_true", help="count sentences, no model")
    args = parser.parse_args(argv)
    roots = default_roots(Path(args.data_dir).resolve())
    if args.count_only:
        found = sentences(roots)
        print(f"{len(found):,} sentences under {', '.join(map(str, roots))}")
        for text in random.Random(SEED).sample(found, min(10, len(found))):
            print("  ", text)
        return 0

    def client() -> EmbeddingClient:
        from hmem.extract.local_embed import LocalEmbeddings

        return LocalEmbeddings(model_dir=args.model_dir, threads=args.threads, batch_size=256)

    corpus = real_corpus(
        args.size, Path(args.cache), client, roots=roots, model_name=Path(args.model_dir).name
    )
    print(f"{len(corpus):,} sentences, vectors {corpus.vectors.shape}")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
