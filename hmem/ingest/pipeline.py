"""The write path for one accepted session: read, one extractor call, the relation
table, arithmetic dedup, one embedding batch, one transaction.

Nothing here deletes. The model's relations are checked (only the open facts it was
shown can be targets) and mapped to operations by ``hmem.extract.relations``.
"""

from __future__ import annotations

import contextvars
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from hmem._text import adds_content, fact_hash
from hmem.errors import HmemError, PolicyRefusal
from hmem.extract.clients import EmbeddingClient, Usage
from hmem.extract.dates import resolve_date
from hmem.extract.extractor import ExtractedFact, Extraction, Extractor, Neighbour
from hmem.extract.policy import require_allowed, require_allowed_value
from hmem.extract.profile import ProfileChat, rewrite_profile
from hmem.extract.relations import Operation, decide
from hmem.graph.store import EpisodeDraft, GraphStore
from hmem.ingest.job import Job
from hmem.models import AddResult, EntityRef, FactDraft, SupersedeTarget, WriteResult

__all__ = ["AddResult", "Pipeline"]  # AddResult: hmem.models, named here too


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / norm if norm else 0.0


def _refused(fact: ExtractedFact) -> str | None:
    """The kind the write policy refuses an extracted fact for, or None.

    Why again after the policy ran on the user's words: a model reads through what the
    user obfuscated ("g~hp_...", "A K I A ...") and writes it out, and a fact, an entity
    name or type it writes is stored as it is. The relations name only the open facts the
    model was shown (checked in ``_plan``), so they carry no text of their own.
    """
    try:
        require_allowed(fact.text)
        for i, entity in enumerate(fact.entities):
            require_allowed_value(entity.name, f"entities[{i}].name")
            require_allowed_value(entity.type, f"entities[{i}].type")
    except PolicyRefusal as exc:
        return exc.kind
    return None


_BESIDE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="hmem-pipeline")


def _ask_beside(
    read: Callable[[str, str], list[str] | None], user_id: str, job_id: str
) -> Future[list[str] | None]:
    """``read(user_id, job_id)`` in a pool thread, in the caller's context (its span)."""
    context = contextvars.copy_context()
    return _BESIDE.submit(lambda: context.run(read, user_id, job_id))


def _replayed(result: AddResult, written: list[str] | None) -> bool:
    """The job's write is in the graph already (committed before a crash): ``result``
    says so, and nothing is redone."""
    if written is None:
        return False
    result.added, result.replayed = written, True
    return True


def _fact_id(job_id: str, index: int) -> str:
    """Deterministic per job: a re-run of the same job writes the same ids."""
    return uuid.uuid5(uuid.UUID(job_id), f"fact-{index}").hex


@dataclass
class Pipeline:
    store: GraphStore
    embedder: EmbeddingClient | None
    extractor_factory: Callable[[], Extractor]
    dedup_cosine: float = 0.95
    neighbours_k: int = 10
    # one extracted fact closes at most this many (Config.infer_max_closures); past it
    # its closures become conflicts (both kept open, marked for the reader to settle)
    max_closures: int = 3
    profile_chat: Callable[[], ProfileChat] | None = None  # set: rewrite the profile
    _extractor: Extractor | None = None

    @property
    def extractor(self) -> Extractor:
        if self._extractor is None:
            self._extractor = self.extractor_factory()
        return self._extractor

    def process(self, job: Job, save_extraction: Callable[[dict[str, Any]], None]) -> AddResult:
        started = time.perf_counter()
        result = AddResult(job_id=job.id, refused=list(job.refused))
        # Was this job's write committed before a crash? A re-run asks before anything
        # else; a first run (almost never written) asks beside the query's embedding and
        # neighbours, off the critical path. Either way nothing is extracted or written
        # before the answer is in.
        asked = _ask_beside(self.store.episode_facts, job.user_id, job.id)
        if job.attempts > 1 and _replayed(result, asked.result()):
            return result
        if not job.source_text.strip():  # nothing of the user's own words survived the policy
            _replayed(result, asked.result())
            return result

        query, embed_seconds = None, 0.0
        if self.embedder is not None:
            embed_started = time.perf_counter()
            [query] = self.embedder.embed([job.source_text])
            embed_seconds = time.perf_counter() - embed_started
        found = self.store.neighbours(job.user_id, query, self.neighbours_k)
        if _replayed(result, asked.result()):
            return result
        if query is not None:
            result.embed_seconds += embed_seconds
            result.embedding_calls += 1
        # A fact learned after this session was said is nothing it can update (belief
        # time only moves forward: the store refuses such a supersession).
        found = [r for r in found if r["known_from"] <= job.observed_at]
        neighbours = [Neighbour(r["id"], r["text"], r["valid_from"], r["score"]) for r in found]
        vectors = {r["id"]: r["embedding"] for r in found if r["embedding"] is not None}

        if job.extraction is not None:
            extraction = Extraction.model_validate(job.extraction)
        else:
            model_started = time.perf_counter()
            extraction, usage = self.extractor.extract(job.source_text, neighbours, job.observed_at)
            result.model_seconds = time.perf_counter() - model_started
            self._count(result, usage)
            # screened before it is kept: the queue row must not hold what was refused
            kinds = [_refused(f) for f in extraction.facts]
            result.refused += [k for k in kinds if k is not None]
            kept = [f for f, k in zip(extraction.facts, kinds, strict=True) if k is None]
            extraction = extraction.model_copy(update={"facts": kept})
            save_extraction(extraction.model_dump(mode="json"))

        drafts, merges = self._plan(job, extraction, neighbours, result)
        drafts, more = self._dedup(drafts, neighbours, vectors, result)
        merges += [m for m in more if m not in merges]
        written_result = self.store.write(
            job.user_id,
            drafts,
            observed_at=job.observed_at,
            episode=EpisodeDraft(
                id=job.id,
                text=job.episode_text,
                observed_at=job.observed_at,
                session_id=job.session_id,
                redactions=tuple(job.refused),
            )
            if drafts or merges
            else None,
            corroborate=merges,
            accepted_at=job.created_at,
        )
        self._merge(result, written_result)
        result.superseded_reasons = {
            t.target_id: t.reason.value
            for d in drafts
            for t in d.supersedes
            if t.target_id in written_result.superseded
        }
        if self.profile_chat is not None and result.added:
            self._rewrite_profile(job, [d.text for d in drafts], result)
        result.total_seconds = time.perf_counter() - started
        return result

    def _rewrite_profile(self, job: Job, new_facts: list[str], result: AddResult) -> None:
        """A second, optional call; its failure never undoes the session's facts."""
        assert self.profile_chat is not None
        current = self.store.profile(job.user_id)
        try:
            profile, usage = rewrite_profile(
                self.profile_chat(), current[0] if current else None, new_facts
            )
        except HmemError:
            result.profile_updated = False
            return
        self._count(result, usage)
        try:  # the model's own words: the same policy as a profile written by hand
            require_allowed(profile.text)
        except PolicyRefusal as exc:
            result.refused.append(exc.kind)
            result.profile_updated = False
            return
        self.store.set_profile(job.user_id, profile.text, accepted_at=job.created_at)
        result.profile_updated = True

    @staticmethod
    def _count(result: AddResult, usage: Usage) -> None:
        result.chat_calls += usage.calls
        result.prompt_tokens += usage.prompt_tokens
        result.completion_tokens += usage.completion_tokens

    def _plan(
        self,
        job: Job,
        extraction: Extraction,
        neighbours: Sequence[Neighbour],
        result: AddResult,
    ) -> tuple[list[FactDraft], list[str]]:
        shown = {n.id for n in neighbours}
        starts = {n.id: n.valid_from for n in neighbours}
        by_hash = {fact_hash(n.text): n.id for n in neighbours}
        drafts: list[FactDraft] = []
        merges: list[str] = []
        closing: set[str] = set()  # one successor per target in one session
        for index, fact in enumerate(extraction.facts):
            kind = _refused(fact)
            if kind is not None:  # an extraction kept before it was screened (a retry)
                result.refused.append(kind)
                continue
            supersedes: list[SupersedeTarget] = []
            relates: list[str] = []
            conflicts: list[str] = []
            valid_from = resolve_date(fact.event_date, job.observed_at) or job.observed_at
            duplicate_of: str | None = by_hash.get(fact_hash(fact.text))
            for rel in fact.relations:
                if rel.target_id not in shown:  # unknown, closed, or another user's id
                    result.rejected_targets.append(rel.target_id)
                    continue
                operation, reason = decide(rel.relation)
                if operation is Operation.MERGE:
                    duplicate_of = duplicate_of or rel.target_id
                elif operation is Operation.SUPERSEDE and valid_from < starts[rel.target_id]:
                    # News about an earlier time cannot close a later fact: keep both
                    # open and mark the conflict for the reader (and the user) to settle.
                    if rel.target_id not in conflicts:
                        conflicts.append(rel.target_id)
                elif operation is Operation.SUPERSEDE and reason is not None:
                    if rel.target_id not in {s.target_id for s in supersedes}:
                        supersedes.append(
                            SupersedeTarget(
                                target_id=rel.target_id,
                                reason=reason,
                                relation=rel.relation.value,
                            )
                        )
                elif rel.target_id not in relates:
                    relates.append(rel.target_id)
            if duplicate_of is not None:
                if duplicate_of not in merges:
                    merges.append(duplicate_of)
                result.skipped += 1
                continue
            taken = [s for s in supersedes if s.target_id in closing]
            if len(supersedes) - len(taken) > self.max_closures:
                taken = supersedes  # one fact's words may not rewrite the user's present
            supersedes = [s for s in supersedes if s not in taken]
            conflicts += [s.target_id for s in taken if s.target_id not in conflicts]
            closing.update(s.target_id for s in supersedes)
            drafts.append(
                FactDraft(
                    id=_fact_id(job.id, index),
                    text=fact.text,
                    category=fact.category,
                    importance=fact.importance,
                    valid_from=valid_from,
                    known_from=job.observed_at,
                    entities=[EntityRef(name=e.name, type=e.type) for e in fact.entities],
                    supersedes=supersedes,
                    relates=relates,
                    conflicts=conflicts,
                    source="extractor",
                )
            )
        return drafts, merges

    def _dedup(
        self,
        drafts: list[FactDraft],
        neighbours: Sequence[Neighbour],
        vectors: dict[str, list[float]],
        result: AddResult,
    ) -> tuple[list[FactDraft], list[str]]:
        """Embed the survivors in one batch; a near-copy (cosine >= threshold, and no
        content word the other lacks) of a neighbour or of an earlier survivor is
        skipped, and the neighbour corroborated."""
        if not drafts or self.embedder is None:
            return drafts, []
        embed_started = time.perf_counter()
        embedded = self.embedder.embed([d.text for d in drafts])
        result.embed_seconds += time.perf_counter() - embed_started
        result.embedding_calls += 1
        kept: list[FactDraft] = []
        merges: list[str] = []
        for draft, vector in zip(drafts, embedded, strict=True):
            if draft.supersedes:  # a replacement may read like its target; keep it
                kept.append(draft.model_copy(update={"embedding": vector}))
                continue
            near = max(
                (
                    (n.id, _cosine(vector, vectors[n.id]))
                    for n in neighbours
                    if n.id in vectors and not adds_content(draft.text, n.text)
                ),
                key=lambda pair: pair[1],
                default=None,
            )
            if near is not None and near[1] >= self.dedup_cosine:
                result.skipped += 1
                if near[0] not in merges:
                    merges.append(near[0])
                continue
            if any(
                k.embedding is not None
                and not adds_content(draft.text, k.text)
                and _cosine(vector, k.embedding) >= self.dedup_cosine
                for k in kept
            ):
                result.skipped += 1
                continue
            kept.append(draft.model_copy(update={"embedding": vector}))
        return kept, merges

    @staticmethod
    def _merge(result: AddResult, written: WriteResult) -> None:
        result.added = written.added
        result.bookmarks = written.bookmarks
        result.superseded = written.superseded
        result.merged = written.merged
        result.related = written.related
        result.skipped += written.skipped
