"""``Memory``'s writes (a mixin of ``hmem/memory.py``): facts written directly
(``remember``, ``remember_many``, ``import_facts``: the policy, entities, vectors, one
transaction each) and sessions through the extractor's durable queue (``add``, the
jobs, ``import_sessions``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pydantic

from hmem.config import Config
from hmem.errors import (
    ModelNotConfiguredError,
    PolicyRefusal,
    StoreUnavailableError,
    TextTooLongError,
    ValidationError,
)
from hmem.extract.clients import EmbeddingClient
from hmem.extract.entities import find_entities
from hmem.extract.policy import require_allowed, require_allowed_draft, require_allowed_session
from hmem.graph import GraphStore
from hmem.graph.store import EpisodeDraft, session_episode_id
from hmem.infer.write import infer_write
from hmem.ingest import AddResult, Ingestor, Job
from hmem.ingest.ingestor import MessagesIn
from hmem.models import (
    IMPORT_BATCH_SIZE,
    Category,
    EntityRef,
    FactDraft,
    InferredLink,
    SupersedeReason,
    SupersedeTarget,
    WriteResult,
    import_batches,
    require_aware,
)
from hmem.telemetry import Telemetry

__all__ = ["NO_CHAT_MODEL", "MemoryWrites"]

NO_CHAT_MODEL = (
    "no language model is configured: set HMEM_LLM_BASE_URL and HMEM_LLM_MODEL (any "
    "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama), or "
    "HMEM_LLM_API_KEY for the OpenAI API"
)


def _draft(**fields: Any) -> FactDraft:
    try:
        return FactDraft(**fields)
    except pydantic.ValidationError as exc:
        raise ValidationError(str(exc)) from exc


class MemoryWrites:
    """The write calls of ``Memory``."""

    # What the writes use of the Memory they are part of (hmem/memory.py sets them up).
    config: Config
    store: GraphStore
    embedder: EmbeddingClient | None
    telemetry: Telemetry
    ingest: Ingestor

    if TYPE_CHECKING:

        def check_embedding_model(self) -> None: ...

        def ensure_schema_once(self) -> None: ...

        def _chat_client(self) -> Any: ...

        @property
        def extraction_configured(self) -> bool: ...

    # -- writes ---------------------------------------------------------------------------
    def remember(
        self,
        text: str,
        *,
        user_id: str,
        category: Category | str = Category.SEMANTIC,
        importance: int = 5,
        observed_at: datetime | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        entities: Sequence[EntityRef | str] = (),
        supersedes: Sequence[str | SupersedeTarget] = (),
        reason: SupersedeReason | str = SupersedeReason.CONTRADICTION,
        relates: Sequence[str] = (),
        embedding: Sequence[float] | None = None,
        source: str = "direct",
        fact_id: str | None = None,
        speaker: str | None = None,
        infer: bool | None = None,
    ) -> WriteResult:
        """Write one fact directly (no extractor): for agents that already know the fact,
        for imports, demos and tests. ``supersedes`` closes older facts of this user.
        ``infer``: read time from the words (``hmem.infer``): the world window ("since
        2019", "last month", with its precision) and the user's current facts the text
        changes (a move closes the old home, "passed away" ends a pet, "actually"
        corrects; by rules, or with a model configured by one structured call per
        write that has neighbours), each closure a SUPERSEDES edge marked inferred with its cue and
        score (``WriteResult.inferred``; ``restore`` undoes it). None (the default):
        infer when neither ``supersedes`` nor ``valid_from``/``valid_to`` is given;
        False: store exactly as given.
        ``speaker``: who said it, for a chat turn (stored folded, like entity names): a
        question that names the speaker ranks the turn higher.

        The write policy still applies (a credential is refused with ``PolicyRefusal``),
        and the text is embedded when an embedder is configured and no vector is given.
        """
        accepted_at = datetime.now(UTC)  # an erasure from here on wins over this write
        self._check_length(text, "fact text")
        require_allowed(text)
        draft = _draft(
            text=text,
            category=category,
            importance=importance,
            valid_from=valid_from,
            valid_to=valid_to,
            known_from=observed_at,
            # plain values, so that pydantic validates them inside _draft's error mapping
            entities=[e if isinstance(e, EntityRef) else {"name": e} for e in entities],
            supersedes=[
                t if isinstance(t, SupersedeTarget) else {"target_id": t, "reason": reason}
                for t in supersedes
            ],
            relates=list(relates),
            embedding=list(embedding) if embedding is not None else None,
            source=source,
            id=fact_id,
            speaker=speaker,
        )
        if speaker is not None:  # the draft holds it folded: case-sensitive keys are gone
            require_allowed_draft(draft.model_copy(update={"speaker": speaker}))
        else:
            require_allowed_draft(draft)
        if infer is None:
            infer = not supersedes and valid_from is None and valid_to is None
        if not infer:
            return self._write_drafts("remember", [draft], user_id, observed_at, accepted_at)
        return self._remember_inferred(draft, user_id, observed_at, accepted_at)

    def _remember_inferred(
        self,
        draft: FactDraft,
        user_id: str,
        observed_at: datetime | None,
        accepted_at: datetime,
    ) -> WriteResult:
        """``remember`` with ``infer``: the draft's window and supersessions read from its
        words against its neighbours (``hmem.infer.write``), inside the write's span; a
        text that only repeats a stored fact corroborates it."""
        observed = require_aware(observed_at, "observed_at") or accepted_at
        inferred: list[InferredLink] = []
        proposed: list[InferredLink] = []

        def prepare(drafts: list[FactDraft], span: Any) -> list[FactDraft] | WriteResult:
            [found] = drafts
            plan = infer_write(
                self.store,
                user_id,
                found.text,
                observed_at=observed,
                vector=found.embedding,
                names=[e.canonical for e in found.entities],
                k=self.config.neighbours_k,
                dates=found.valid_from is None and found.valid_to is None,
                chat=self._chat_client() if self.extraction_configured else None,
                frames=self.embedder.embed if self.embedder is not None else None,
                frame_cosine=self.config.infer_frame_cosine,
            )
            span.set(
                hmem__chat_calls=plan.chat_calls,
                hmem__neighbours=plan.neighbours,
                hmem__inferred=len(plan.supersedes),
                hmem__corroborated=len(plan.corroborate),
                hmem__infer_ms=round(plan.seconds * 1000, 2),
            )
            if plan.corroborate and not plan.supersedes:
                return self.store.write(
                    user_id, [], observed_at=observed_at, corroborate=plan.corroborate,
                    accepted_at=accepted_at,
                )  # fmt: skip
            update: dict[str, Any] = {}
            if found.valid_from is None and found.valid_to is None:
                update.update(plan.window(observed))
            named = {t.target_id for t in found.supersedes}
            fresh = [t for t in plan.supersedes if t.target_id not in named]
            if len(fresh) > self.config.infer_max_closures:
                # one write's words may not rewrite a user's present: past the bound,
                # nothing is closed and every closure is a proposal to confirm
                proposed.extend(
                    InferredLink(
                        old_id=t.target_id, reason=t.reason, cue=t.cue or "", score=t.score
                    )
                    for t in fresh
                )
                fresh = []
            update["supersedes"] = [*found.supersedes, *fresh]
            inferred.extend(
                InferredLink(old_id=t.target_id, reason=t.reason, cue=t.cue or "", score=t.score)
                for t in fresh
            )
            return [_draft(**{**found.model_dump(), **update})]

        result = self._write_drafts(
            "remember", [draft], user_id, observed_at, accepted_at, prepare=prepare
        )
        closed = set(result.superseded)
        return result.model_copy(
            update={
                "inferred": [link for link in inferred if link.old_id in closed],
                "proposed": proposed,
            }
        )

    def _check_length(self, text: str, what: str) -> None:
        """Length before the policy: the policy reads every character of a text."""
        if len(text) > self.config.max_fact_chars:
            raise TextTooLongError(
                f"{what} has {len(text)} characters; the limit is {self.config.max_fact_chars}"
            )

    def remember_many(
        self,
        drafts: Sequence[FactDraft],
        *,
        user_id: str,
        observed_at: datetime | None = None,
        session_id: str | None = None,
    ) -> WriteResult:
        """Write several facts in one transaction; missing vectors are embedded in one batch.

        The model outputs a caller already has are taken as given: a draft with an
        ``embedding`` is not embedded, and a draft that names ``entities`` is not read by
        the entity finder (spaCy's NER and the user's known names). Only the drafts that
        name none are read, all in one batch, and none when ``Config.ner`` is ``off``.

        ``session_id`` names the conversation the facts came from: they are linked
        (``FROM``) to its episode, with each draft's ``turn`` on the link, so recall can
        score the session as a group and bring the turns next to a hit. Calls with the
        same ``session_id`` join the same episode."""
        accepted_at = datetime.now(UTC)
        for number, draft in enumerate(drafts):
            self._check_length(draft.text, f"fact {number}: text")
            try:
                require_allowed(draft.text)
            except PolicyRefusal as exc:  # which of the facts, never its text
                raise PolicyRefusal(exc.kind, f"fact {number}: {exc}") from None
            require_allowed_draft(draft, f"facts[{number}].")
        require_allowed_session((), session_id)
        episode = None
        if session_id is not None:
            episode = EpisodeDraft(
                text="",
                observed_at=observed_at or accepted_at,
                session_id=session_id,
                id=session_episode_id(session_id),
            )
        return self._write_drafts(
            "remember_many", drafts, user_id, observed_at, accepted_at, episode=episode
        )

    def _write_drafts(
        self,
        operation: str,
        drafts: Sequence[FactDraft],
        user_id: str,
        observed_at: datetime | None,
        accepted_at: datetime,
        *,
        episode: EpisodeDraft | None = None,
        prepare: Callable[[list[FactDraft], Any], list[FactDraft] | WriteResult] | None = None,
    ) -> WriteResult:
        """Entities for drafts that name none, vectors for drafts without one (one
        batch), then one transaction; traced as one span (ids and counts only).
        ``prepare`` (``remember``'s infer) sees the drafts with their entities and
        vectors and returns the drafts to write, or a result instead."""
        self.ensure_schema_once()
        with self.telemetry.span(operation, user_id=user_id, hmem__facts=len(drafts)) as span:
            drafts = self._with_entities(drafts, user_id)
            missing = [i for i, d in enumerate(drafts) if d.embedding is None]
            if missing and self.embedder is not None:
                self.check_embedding_model()
                with self.telemetry.model_call(
                    "embeddings", self.embedder.model_name, hmem__texts=len(missing)
                ):
                    vectors = self.embedder.embed([drafts[i].text for i in missing])
                filled = list(drafts)
                for i, vector in zip(missing, vectors, strict=True):
                    filled[i] = drafts[i].model_copy(update={"embedding": vector})
                drafts = filled
            if prepare is not None:
                prepared = prepare(list(drafts), span)
                if isinstance(prepared, WriteResult):
                    return prepared
                drafts = prepared
            result = self.store.write(
                user_id, drafts, observed_at=observed_at, accepted_at=accepted_at, episode=episode
            )
            span.set(**{f"hmem__{k}": v for k, v in result.counts().items()})
            return result

    def _with_entities(self, drafts: Sequence[FactDraft], user_id: str) -> list[FactDraft]:
        """Drafts that name no entity get the ones spaCy finds in their text (the user's
        known names always; a trained pipeline's people, places, ... when installed).
        Drafts that name some keep exactly those: the caller's (an extractor's) output."""
        bare = [i for i, d in enumerate(drafts) if not d.entities]
        if not bare or self.config.ner == "off":
            return list(drafts)
        with self.telemetry.span("find_entities", user_id=user_id, hmem__texts=len(bare)) as span:
            known = [
                EntityRef(name=e.name, type=e.type[:40], aliases=e.aliases[:32])
                for e in self.store.entities(user_id)
            ]
            found = find_entities(
                [drafts[i].text for i in bare],
                known,
                trained=self.config.ner == "auto",
                limit=self.config.max_entities_per_fact,
            )
            span.set(hmem__known_entities=len(known), hmem__found=sum(map(len, found)))
        out = list(drafts)
        for i, refs in zip(bare, found, strict=True):
            if refs:
                out[i] = drafts[i].model_copy(update={"entities": refs})
        return out

    def import_facts(
        self,
        drafts: Iterable[FactDraft],
        *,
        user_id: str,
        batch_size: int = IMPORT_BATCH_SIZE,
        observed_at: datetime | None = None,
    ) -> WriteResult:
        """Write a long history of known facts (no model) in large transactions: the
        bulk path of ``remember_many`` (``hmem import --facts``).

        Facts are written oldest first (by ``known_from``) in transactions of up to
        ``batch_size`` facts; a fact that supersedes or relates to a fact of the same
        batch starts a new one, so every target is stored before it is named. Vectors
        missing are embedded one batch per transaction. Each transaction is all or
        nothing; on an error the batches before it stay written (the result of a rerun
        skips them as exact duplicates).
        """
        batches = import_batches(drafts, batch_size, observed_at or datetime.now(UTC))
        return WriteResult.combine(
            [self.remember_many(b, user_id=user_id, observed_at=observed_at) for b in batches]
        )

    # -- the write path (one extractor call per session) ---------------------------------
    def add(
        self,
        messages: MessagesIn,
        *,
        user_id: str,
        observed_at: datetime | None = None,
        session_id: str | None = None,
        background: bool = False,
        idempotency_key: str | None = None,
    ) -> AddResult:
        """Remember what the user said in a session: the write policy, the 10 nearest
        open facts, ONE extractor call, the relation table, dedup, one transaction.

        The session is first accepted into a durable queue; a retried call (same
        ``idempotency_key``, by default the same session, time and text) returns the
        same job. ``background=True`` returns at once with ``job_id`` and status
        ``queued``; run a worker with ``start_worker()`` (or ``hmem worker``).
        With no language model configured it raises ``ModelNotConfiguredError`` (naming
        the variables to set) before anything is queued.
        """
        if not self.extraction_configured:
            raise ModelNotConfiguredError(f"add() needs a language model; {NO_CHAT_MODEL}")
        require_allowed_session(messages, session_id)
        try:
            self.ensure_schema_once()
        except StoreUnavailableError:
            if not background:
                raise
            # a queued session is accepted while Neo4j is down; its job writes once it is back
        self.check_embedding_model()
        with self.telemetry.span("add", user_id=user_id, hmem__background=background) as span:
            result = self.ingest.add(
                messages,
                user_id=user_id,
                observed_at=observed_at,
                session_id=session_id,
                background=background,
                idempotency_key=idempotency_key,
            )
            if result.job_id:
                span.set(hmem__job_id=result.job_id)
            span.set(hmem__added=len(result.added), hmem__superseded=len(result.superseded))
            return result

    def job(self, job_id: str, *, user_id: str) -> Job:
        """A session's job: status, attempts, result or error (never its text). A done
        job's write may have been made by another process (``hmem worker``): this
        Memory's reads wait for it from now on (``catch_up``)."""
        found = self.ingest.queue.get(job_id, user_id)
        if found.result and found.result.get("bookmarks"):
            self.catch_up(found.result["bookmarks"])
        return found

    def catch_up(self, bookmarks: Sequence[str]) -> None:
        """Make this Memory's reads wait for writes made elsewhere (another process's
        ``WriteResult.bookmarks``): on a cluster a read routed to a member that has not
        applied them yet waits until it has; on one server they are there already. A
        Memory's own writes are followed without this."""
        if isinstance(bookmarks, str) or not all(isinstance(b, str) for b in bookmarks):
            raise ValidationError("bookmarks must be a list of strings")
        self.store.catch_up(list(bookmarks))

    def retry_job(self, job_id: str, *, user_id: str) -> Job:
        """Queue a failed session again (the model is asked again)."""
        return self.ingest.queue.retry(job_id, user_id)

    def run_jobs(self, max_jobs: int | None = None) -> int:
        """Process queued sessions in this thread; returns how many ran."""
        return self.ingest.run_pending(max_jobs)

    def start_worker(self) -> None:
        """Process queued sessions in a background thread until ``shutdown()``."""
        self.ingest.start()

    def import_sessions(
        self, sessions: Sequence[dict[str, Any]], *, user_id: str
    ) -> list[AddResult]:
        """Replay past sessions in ``observed_at`` order, so later facts close earlier
        ones. Each item: ``{"messages": [...], "observed_at": datetime, "session_id"?}``."""
        ordered = sorted(sessions, key=lambda item: item["observed_at"])
        return [
            self.add(
                item["messages"],
                user_id=user_id,
                observed_at=item["observed_at"],
                session_id=item.get("session_id"),
            )
            for item in ordered
        ]
