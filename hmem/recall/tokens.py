"""An offline token counter: no download, no model, deterministic.

tiktoken fetches its BPE tables from the internet at first use, which fails on
machines without it, so hmem estimates instead. The estimate follows how GPT-style BPE
splits text (cl100k/o200k): a common English word with its leading space is one
token, long words split about every six letters, digits go in groups of three, each
punctuation mark and each non-Latin character counts on its own. It is meant to
over-count slightly (a budget must not be overrun), not to match one tokenizer
exactly; tests/unit/recall/test_recall_tokens.py pins its behaviour.
"""

from __future__ import annotations

import math
import re

__all__ = ["count_tokens"]

_PIECE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]|\s+")
_LATIN_WORD_CHARS = 6
# The same count as the loop over _PIECE's pieces, in one C-level pass (subn counts
# without building a list): a run of letters cut every six letters gives
# ceil(len / 6) pieces, a run of digits cut every three ceil(len / 3); everything else
# but white space is a piece of its own. pack counts every line of a context block: the
# loop took ~2x as long.
_TOKEN = re.compile(r"[A-Za-z]{1,6}|\d{1,3}|[^\sA-Za-z\d]")
_SPACE = re.compile(r"\s+")


def count_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (0 for empty text)."""
    total = _TOKEN.subn("", text)[1]
    if "\n" in text:  # each run of white space that holds a newline counts one
        total += sum(1 for run in _SPACE.findall(text) if "\n" in run)
    return total


def count_tokens_by_piece(text: str) -> int:
    """``count_tokens`` piece by piece (its reference: the unit tests compare them)."""
    total = 0
    newline_runs = 0
    for piece in _PIECE.findall(text):
        first = piece[0]
        if first.isspace():
            newline_runs += piece.count("\n") > 0
            continue
        if first.isascii() and first.isalpha():
            total += max(1, math.ceil(len(piece) / _LATIN_WORD_CHARS))
        elif first.isdigit():
            total += math.ceil(len(piece) / 3)
        else:
            total += 1
    return total + newline_runs
