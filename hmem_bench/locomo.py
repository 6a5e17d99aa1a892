"""LoCoMo retrieval: each conversation is its own user; its observations become
facts (and, in the ``full`` setting, its raw turns become episodic facts) written
through ``Memory.remember_many`` with real local embeddings; every question of
categories 1–4 is searched and scored on evidence ids (see ``metrics``).

The same items are also ranked without a database (plain BM25, dense cosine, and a
numpy hybrid) so the store's gain over each signal is visible.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from hmem.models import Category, EntityRef, FactDraft
from hmem_bench.data import Conversation
from hmem_bench.embed_cache import CachedEmbedder
from hmem_bench.metrics import Ranked
from hmem_bench.textrank import BM25, count_tokens, minmax

__all__ = [
    "SETTINGS",
    "Item",
    "LocomoCorpus",
    "build_corpus",
    "ingest",
    "rank_baseline",
    "search_hmem",
    "user_id_for",
]

SETTINGS = ("facts", "full")  # observations only; observations + raw turns
DEPTH = 100  # how deep every ranking is kept (enough for k = 30 and 4,000 tokens)
CONTEXT_OVERHEAD = 12  # tokens a context line adds for its date and markers
Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Item:
    """One stored row: a fact (observation) or an episodic turn."""

    id: str
    text: str
    category: Category
    evidence: frozenset[str]
    entities: tuple[str, ...]
    session: int
    source: str
    turn: int | None = None  # position of a raw turn in its session
    speaker: str | None = None  # who said a raw turn (FactDraft.speaker)

    @property
    def tokens(self) -> int:
        return count_tokens(self.text) + CONTEXT_OVERHEAD


@dataclass
class LocomoCorpus:
    conversation: Conversation
    setting: str
    items: list[Item]
    vectors: Matrix
    question_vectors: Matrix

    @property
    def questions(self) -> list[Any]:
        return [q for q in self.conversation.questions if q.category in (1, 2, 3, 4)]


def subset_positions(corpus: LocomoCorpus, n: int | None) -> list[int]:
    """At most ``n`` question positions spread evenly over the conversation (so every
    category keeps its share); all of them when ``n`` is None."""
    total = len(corpus.questions)
    if n is None or n >= total:
        return list(range(total))
    return sorted({round(i * total / n) for i in range(n)} - {total})


def subset(corpus: LocomoCorpus, positions: Sequence[int]) -> LocomoCorpus:
    """The same items, only the questions at ``positions``."""
    chosen = [corpus.questions[i] for i in positions]
    keep = {q.qa_id for q in chosen}
    conv = corpus.conversation
    trimmed = Conversation(
        conv.conversation_id,
        conv.speakers,
        conv.sessions,
        tuple(q for q in conv.questions if q.qa_id in keep),
    )
    vectors = corpus.question_vectors[list(positions)]
    return LocomoCorpus(trimmed, corpus.setting, corpus.items, corpus.vectors, vectors)


def user_id_for(conversation_id: str, setting: str) -> str:
    return f"bench-locomo-{setting}-{conversation_id}"


def _named(text: str, names: Sequence[str]) -> list[str]:
    folded = text.casefold()
    return [n for n in names if n.casefold() in folded]


def _source(evidence: Sequence[str]) -> str:
    kept: list[str] = []
    for dia in evidence:
        if len(json.dumps([*kept, dia])) > 200:
            break
        kept.append(dia)
    return json.dumps(kept)


def build_items(conv: Conversation, setting: str) -> list[Item]:
    user = user_id_for(conv.conversation_id, setting)
    items: list[Item] = []
    for s in conv.sessions:
        for j, o in enumerate(s.observations):
            names = list(dict.fromkeys([o.speaker, *_named(o.text, conv.speakers)]))
            items.append(
                Item(
                    id=f"{user}:s{s.session_id}o{j}",
                    text=o.text,
                    category=Category.SEMANTIC,
                    evidence=frozenset(o.evidence),
                    entities=tuple(names),
                    session=s.session_id,
                    source=_source(o.evidence),
                )
            )
        if setting == "full":
            for position, t in enumerate(s.turns):
                text = f"{t.speaker}: {t.text}"
                names = list(dict.fromkeys([t.speaker, *_named(t.text, conv.speakers)]))
                items.append(
                    Item(
                        id=f"{user}:{t.dia_id}",
                        text=text,
                        category=Category.EPISODIC,
                        evidence=frozenset([t.dia_id]),
                        entities=tuple(names),
                        session=s.session_id,
                        source=t.dia_id,
                        turn=position,
                        speaker=t.speaker,
                    )
                )
    return items


def build_corpus(conv: Conversation, setting: str, embedder: CachedEmbedder) -> LocomoCorpus:
    items = build_items(conv, setting)
    vectors = embedder.matrix([i.text for i in items])
    questions = [q for q in conv.questions if q.category in (1, 2, 3, 4)]
    qvecs = embedder.matrix([q.question for q in questions])
    return LocomoCorpus(conv, setting, items, vectors, qvecs)


def ingest(
    memory: Any,
    corpus: LocomoCorpus,
    tick: Callable[[int], None] | None = None,
    *,
    user: str | None = None,
) -> dict[str, Any]:
    """Write the corpus through ``Memory.remember_many``, one transaction per session
    in date order, the session date as both valid and known time, for ``user`` (the
    conversation's bench user by default). Returns counts and the write time."""
    user = user or user_id_for(corpus.conversation.conversation_id, corpus.setting)
    memory.erase_user(user)
    by_session: dict[int, list[FactDraft]] = {}
    dates = {s.session_id: s.date for s in corpus.conversation.sessions}
    for item, vector in zip(corpus.items, corpus.vectors, strict=True):
        date = dates[item.session]
        by_session.setdefault(item.session, []).append(
            FactDraft(
                id=item.id,
                text=item.text,
                category=item.category,
                valid_from=date,
                known_from=date,
                entities=[EntityRef(name=n, type="person") for n in item.entities],
                embedding=[float(x) for x in vector],
                source=item.source,
                turn=item.turn,
                speaker=item.speaker,
            )
        )
    added = skipped = 0
    started = time.perf_counter()
    for session_id in sorted(by_session, key=lambda sid: dates[sid]):
        drafts = by_session[session_id]
        result = memory.remember_many(
            drafts, user_id=user, observed_at=dates[session_id], session_id=f"session-{session_id}"
        )
        added += len(result.added)
        skipped += result.skipped
        if tick is not None:
            tick(len(drafts))
    seconds = time.perf_counter() - started
    return {"user_id": user, "added": added, "skipped": skipped, "seconds": seconds}


# -- rankers ---------------------------------------------------------------------------

BASELINES = ("bm25", "dense", "hybrid-numpy")

# Each technique of the read path switched off alone, for the ablation table: fields of
# hmem.recall.ScoreWeights (0, or back to the seeds' fusion), "names_share"
# (Recall.names_share) or "entity_max_share" (FactSearch.entity_max_share).
ABLATIONS: dict[str, dict[str, float]] = {
    "question embedded as asked only": {"names_share": 1.0},
    "question embedded without its names only": {"names_share": 0.0},
    "without the session group": {"session": 0.0},
    "session share in every rank, not the first 20 only": {"session_ranks": 500},
    "without adjacent turns": {"adjacent": 0.0},
    "without the graph step": {"session": 0.0, "adjacent": 0.0},
    "without the question's time window": {"time": 0.0},
    "without the speaker": {"speaker": 0.0},
    "a chat's speakers count like any entity (entity source, lexical names)": {
        "entity_max_share": 1.0
    },
    "before: 0.8/0.1/0.1, no graph step, names embedded": {
        "names_share": 1.0,
        "time": 0.0,
        "entity_max_share": 1.0,
        "dense": 0.8,
        "lexical": 0.1,
        "entity": 0.1,
        "session": 0.0,
        "adjacent": 0.0,
        "speaker": 0.0,
    },
}


def _entity_scores(corpus: LocomoCorpus, question: str) -> npt.NDArray[np.float64]:
    named = {n.casefold() for n in _named(question, corpus.conversation.speakers)}
    return np.array(
        [1.0 if named & {e.casefold() for e in item.entities} else 0.0 for item in corpus.items]
    )


def rank_baseline(
    corpus: LocomoCorpus, method: str, weights: tuple[float, float, float] = (0.8, 0.1, 0.1)
) -> Iterator[Ranked]:
    """Database-free rankings of the corpus for each question: ``bm25``, ``dense``, or
    ``hybrid-numpy`` (dense, BM25 and entity scores min-max normalised, then weighted)."""
    bm25 = BM25([i.text for i in corpus.items])
    evidence = [i.evidence for i in corpus.items]
    tokens = [i.tokens for i in corpus.items]
    for q, qvec in zip(corpus.questions, corpus.question_vectors, strict=True):
        started = time.perf_counter()
        if method == "bm25":
            scores = bm25.scores(q.question)
        elif method == "dense":
            scores = (corpus.vectors @ qvec).astype(np.float64)
        elif method == "hybrid-numpy":
            dense = minmax((corpus.vectors @ qvec).astype(np.float64))
            lexical = minmax(bm25.scores(q.question))
            entity = _entity_scores(corpus, q.question)
            scores = weights[0] * dense + weights[1] * lexical + weights[2] * entity
        else:
            raise ValueError(f"unknown baseline {method!r}")
        order = np.argsort(-scores, kind="stable")[:DEPTH]
        elapsed = (time.perf_counter() - started) * 1000
        yield Ranked(
            category=q.category,
            gold=frozenset(q.evidence),
            evidence=[evidence[i] for i in order],
            tokens=[tokens[i] for i in order],
            latency_ms=elapsed,
        )


def search_hmem(memory: Any, corpus: LocomoCorpus) -> Iterator[Ranked]:
    """Rank with ``Memory.search`` (vector + fulltext + entity on Neo4j, one-hop walk).
    One deep call per question (k = DEPTH, no token cap): the k and budget cuts are
    taken from its ranking with the same token counter as the baselines."""
    user = user_id_for(corpus.conversation.conversation_id, corpus.setting)
    by_id = {i.id: i for i in corpus.items}
    for q in corpus.questions:
        started = time.perf_counter()
        result = memory.search(q.question, user_id=user, k=DEPTH, token_budget=1_000_000)
        elapsed = (time.perf_counter() - started) * 1000
        evidence: list[frozenset[str]] = []
        tokens: list[int] = []
        for hit in result.hits:
            item = by_id.get(hit.fact.id)
            evidence.append(item.evidence if item else frozenset())
            tokens.append(item.tokens if item else count_tokens(hit.fact.text) + CONTEXT_OVERHEAD)
        yield Ranked(q.category, frozenset(q.evidence), evidence, tokens, elapsed)
