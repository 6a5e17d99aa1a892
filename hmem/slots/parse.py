"""spaCy's trained English pipeline with its parser and lemmatizer (no NER), loaded once
per process: the write path reads a statement's subject from it (``hmem.infer``)."""

from __future__ import annotations

import functools
import importlib.util
import threading
from typing import TYPE_CHECKING

from hmem.extract.entities import TRAINED_PIPELINES

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = ["parser_pipeline"]

_loading = threading.Lock()


def parser_pipeline() -> Language | None:
    """The trained English pipeline with its parser and lemmatizer (no NER), loaded
    once per process; None when none is installed (the rules then read the subject from
    the words alone)."""
    with _loading:
        return _load_parser()


@functools.cache
def _load_parser() -> Language | None:
    import spacy

    for name in TRAINED_PIPELINES:
        if importlib.util.find_spec(name) is not None:
            return spacy.load(name, exclude=["ner"])
    return None
