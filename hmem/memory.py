"""``Memory``: the facade a Python application uses.

It owns one Neo4j driver (one per process is the rule) and a ``GraphStore``; it takes
a ``Config`` and never reads the environment itself.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Unpack

import pydantic
from neo4j import Driver, GraphDatabase

from hmem.config import Config
from hmem.errors import (
    ConfigError,
    ModelNotConfiguredError,
    PolicyRefusal,
    TextTooLongError,
    ValidationError,
)
from hmem.extract.clients import EmbeddingClient, make_chat_client, make_embedder
from hmem.extract.entities import find_entities, pipeline, pipeline_name
from hmem.extract.extractor import Extractor, JsonChat
from hmem.extract.policy import (
    require_allowed,
    require_allowed_draft,
    require_allowed_session,
)
from hmem.extract.profile import Profile
from hmem.graph import GraphStore
from hmem.graph.apikeys import KeyStore
from hmem.graph.embedding_model import check_model, pending, reembed
from hmem.graph.search import FactSearch
from hmem.graph.store import EpisodeDraft, session_episode_id
from hmem.infer.write import infer_write
from hmem.ingest import AddResult, Ingestor, Job
from hmem.ingest.ingestor import MessagesIn
from hmem.ingest.pipeline import Pipeline
from hmem.ingest.queue_backend import open_queue
from hmem.models import (
    IMPORT_BATCH_SIZE,
    Category,
    EntityRef,
    Fact,
    FactDraft,
    FactHistory,
    InferredLink,
    SupersedeReason,
    SupersedeTarget,
    UserExport,
    WriteResult,
    import_batches,
    require_aware,
)
from hmem.recall import MaintenanceResult, Recall, ScoreWeights, SearchResult
from hmem.secret import load_secret
from hmem.surface import SEARCH_DEFAULTS, FactsOptions, SearchOptions
from hmem.telemetry import Telemetry

__all__ = ["Memory", "make_driver", "resolve_password"]

NO_CHAT_MODEL = (
    "no language model is configured: set HMEM_LLM_BASE_URL and HMEM_LLM_MODEL (any "
    "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama), or "
    "HMEM_LLM_API_KEY for the OpenAI API"
)
NO_EMBEDDER = (
    "set HMEM_EMBED_MODEL_DIR to a local model folder, or HMEM_EMBED_PROVIDER=openai with "
    "HMEM_EMBED_BASE_URL and HMEM_EMBED_MODEL"
)
# A user id no API caller can have (theirs start with a letter or digit and are stored
# as "tenant:user"); it is only searched, never written.
_WARM_USER = "__hmem_warm_up__"


def resolve_password(config: Config) -> str:
    """The configured password, else the one the local dev server generated."""
    if config.neo4j_password is not None:
        return config.neo4j_password.get_secret_value()
    local = Path(config.neo4j_home) / "password"
    if local.is_file():
        return local.read_text().strip()
    raise ConfigError(
        "no Neo4j password: set HMEM_NEO4J_PASSWORD, or start the local server with "
        "`hmem neo4j start` (it writes one to "
        f"{local})"
    )


def make_driver(config: Config) -> Driver:
    """The Neo4j driver for ``config``, failing fast when Neo4j is down: connections give
    up after ``neo4j_connect_timeout_s`` (a refused one at once), transient failures are
    retried for ``neo4j_retry_s`` (the driver's default is 30 s, which is how long every
    request used to hang during an outage). Getting a connection from the pool may take
    up to ``neo4j_acquire_timeout_s``: opening one to a live but loaded server (handshake,
    login) is slow, not a sign of an outage."""
    return GraphDatabase.driver(
        config.neo4j_uri,
        auth=(config.neo4j_user, resolve_password(config)),
        connection_timeout=config.neo4j_connect_timeout_s,
        connection_acquisition_timeout=config.neo4j_acquire_timeout_s,
        max_transaction_retry_time=config.neo4j_retry_s,
        # Null properties (open windows) make the server warn "property does not
        # exist" on every read; those notices are noise for hmem's statements.
        notifications_min_severity="OFF",
    )


def _draft(**fields: Any) -> FactDraft:
    try:
        return FactDraft(**fields)
    except pydantic.ValidationError as exc:
        raise ValidationError(str(exc)) from exc


class Memory:
    """Bitemporal memory for one application: ``remember``, ``get``, ``history``,
    ``facts``, ``close``, ``restore``, ``erase``, ``erase_user``, ``export``."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        driver: Driver | None = None,
        embedder: EmbeddingClient | None = None,
        chat: JsonChat | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        """``driver``, ``embedder`` and ``chat`` (the extractor's model client) default to
        what ``config`` describes; pass your own to share a driver or pick models.
        ``telemetry`` (OpenTelemetry spans) defaults to ``HMEM_OTEL_*``: off."""
        self.config = config or Config()
        configured = self.config.server_secret
        secret = load_secret(
            configured.get_secret_value() if configured else None, self.config.queue_path
        )
        self.telemetry = telemetry or Telemetry(
            self.config.otel_enabled,
            user_ids=self.config.otel_user_id,
            database=self.config.neo4j_database,
            secret=secret,
        )
        self._owns_embedder = embedder is None
        self.embedder = embedder if embedder is not None else make_embedder(self.config)
        if self.embedder is not None and self.embedder.dim != self.config.embedding_dim:
            raise ConfigError(
                f"the embedder makes {self.embedder.dim}-d vectors but embedding_dim is "
                f"{self.config.embedding_dim}"
            )
        self._owns_driver = driver is None
        self._driver = driver or make_driver(self.config)
        self.store = GraphStore(
            self._driver,
            database=self.config.neo4j_database,
            embedding_dim=self.config.embedding_dim,
            max_fact_chars=self.config.max_fact_chars,
            max_entities_per_fact=self.config.max_entities_per_fact,
            vector_index_min_facts=self.config.vector_index_min_facts,
            secret=secret,
        )
        search = self.config.search
        self.recall = Recall(
            FactSearch.from_settings(self._driver, self.config.neo4j, search),
            weights=ScoreWeights.from_settings(search),
            embedder=self.embedder,
            names_share=search.names_share,
        )
        self._chat = chat
        self._model_checked = False
        self.ingest = Ingestor(
            open_queue(self.config, secret),
            Pipeline(
                store=self.store,
                embedder=self.embedder,
                extractor_factory=self._make_extractor,
                dedup_cosine=self.config.dedup_cosine,
                neighbours_k=self.config.neighbours_k,
                profile_chat=self._chat_client if self.config.profile_enabled else None,
            ),
            max_session_chars=self.config.max_session_chars,
            telemetry=self.telemetry,
        )
        self.ingest.key_check = KeyStore(
            self._driver, database=self.config.neo4j_database
        ).check_grant

    def check_embedding_model(self) -> None:
        """Record the embedder as the store's model, or refuse another one
        (``EmbeddingModelMismatchError``); asked once per ``Memory``. Off with
        ``embed_model_check=False`` (a test database shared by several models)."""
        if self._model_checked or self.embedder is None or not self.config.embed_model_check:
            return
        check_model(
            self._driver, self.config.neo4j_database, self.embedder.model_name, self.embedder.dim
        )
        self._model_checked = True

    def reembed(
        self, *, batch_size: int = 256, progress: Callable[[int], None] | None = None
    ) -> dict[str, Any]:
        """Move the whole store (every user) to this instance's embedder: each fact is
        embedded again, the vector index rebuilt if the dimension changes, and the
        embedder recorded as the store's model. Resumable: a rerun skips facts already
        done. ``progress`` gets the size of each finished batch."""
        if self.embedder is None:
            raise ModelNotConfiguredError(f"reembed needs an embedding model: {NO_EMBEDDER}")
        result = reembed(
            self._driver,
            self.config.neo4j_database,
            name=self.embedder.model_name,
            dim=self.embedder.dim,
            embed=self.embedder.embed,
            batch_size=batch_size,
            progress=progress or (lambda n: None),
        )
        self._model_checked = True
        return result

    def reembed_pending(self) -> int:
        """How many facts ``reembed`` has left to do for this instance's embedder."""
        if self.embedder is None:
            raise ModelNotConfiguredError(f"reembed needs an embedding model: {NO_EMBEDDER}")
        return pending(self._driver, self.config.neo4j_database, self.embedder.model_name)

    def _chat_client(self) -> Any:
        if self._chat is None:
            self._chat = make_chat_client(self.config)
        return self._chat

    @property
    def extraction_configured(self) -> bool:
        """Whether ``add()`` has a language model: a chat client passed in, or
        ``HMEM_LLM_BASE_URL`` / ``HMEM_LLM_API_KEY`` set."""
        config = self.config
        return self._chat is not None or config.llm_base_url is not None or bool(config.llm_api_key)

    def capabilities(self) -> dict[str, str]:
        """What this instance can do, each ``"on: ..."`` or ``"off: <what to set>"``:
        ``extraction`` (``add()``: a language model), ``dense_embeddings`` and
        ``entities`` (spaCy's pipeline for facts written without entities)."""
        config = self.config
        if self._chat is not None:
            extraction = "on"
        elif self.extraction_configured:
            extraction = f"on: {config.llm_model}"
        else:
            extraction = f"off: {NO_CHAT_MODEL}"
        if self.embedder is not None:
            dense = f"on: {self.embedder.model_name} ({self.embedder.dim}-d)"
        else:
            dense = f"off: {NO_EMBEDDER}"
        if self.config.ner == "off":
            entities = "off: HMEM_NER=off"
        else:
            entities = f"on: {pipeline_name(trained=self.config.ner == 'auto')}"
        return {"extraction": extraction, "dense_embeddings": dense, "entities": entities}

    def warm_up(self) -> None:
        """Pay the first search's one-time costs now: the embedder's first run, the read
        statements' plans in Neo4j, the query parser. Searches a user that cannot exist,
        so nothing is read or touched. The spaCy pipeline of the first write loads too.

        Neo4j keeps one plan per statement text and parameter *types* (with
        ``internal.cypher.use_parameter_size=false``, which hmem's servers set, not per
        list size); the catalog sends the parameters whose type varies in one map
        (``hmem.graph.catalog.VARYING``), so the first search plans the one read
        statement. The others run it with words or none, a date span, a belief date and
        a world date, the shapes questions bring."""
        if self.config.ner != "off":
            pipeline(trained=self.config.ner == "auto")
        now = datetime.now(UTC)
        self.search("Where did the warm-up user live before 2020?", user_id=_WARM_USER)
        self.search("warm up", user_id=_WARM_USER, as_of=now)
        self.search("warm up", user_id=_WARM_USER, as_of_event=now)
        self.search("Who?", user_id=_WARM_USER)  # no words of its own: empty lists

    def _make_extractor(self) -> Extractor:
        return Extractor(self._chat_client())

    def profile(self, *, user_id: str) -> dict[str, Any] | None:
        """The user's running profile (``text``, ``updated_at``), or None. It is written
        after sessions when ``profile_enabled`` is set, or by ``set_profile``."""
        found = self.store.profile(user_id)
        return None if found is None else {"text": found[0], "updated_at": found[1]}

    def set_profile(self, text: str, *, user_id: str) -> None:
        """Write the profile yourself (at most 120 words; the write policy applies)."""
        try:  # the length first: it costs nothing, the policy reads every character
            Profile(text=text)
        except pydantic.ValidationError as exc:
            raise ValidationError(str(exc.errors()[0]["msg"])) from None
        require_allowed(text)
        self.store.set_profile(user_id, text)

    # -- lifecycle ------------------------------------------------------------------------
    def init_schema(self) -> None:
        self.store.ensure_schema()

    def shutdown(self) -> None:
        self.recall.close()  # pending last_used_at touches finish before the driver goes
        self.ingest.stop()
        self.ingest.queue.close()
        if self._owns_driver:
            self._driver.close()
        if self._owns_embedder and self.embedder is not None:
            self.embedder.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.shutdown()

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
            update={"inferred": [link for link in inferred if link.old_id in closed]}
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
        known names always; a trained pipeline's people, places, ... when installed)."""
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

    def close(
        self,
        fact_id: str,
        *,
        user_id: str,
        at: datetime | None = None,
        observed_at: datetime | None = None,
        reason: SupersedeReason | str = SupersedeReason.RETRACTION,
    ) -> Fact:
        return self.store.close(
            user_id, fact_id, at=at, observed_at=observed_at, reason=SupersedeReason(reason)
        )

    def restore(self, fact_id: str, *, user_id: str) -> Fact:
        return self.store.restore(user_id, fact_id)

    def erase(self, fact_id: str, *, user_id: str) -> dict[str, int]:
        """Really delete one fact: from the graph (its vector, the episodes no other
        fact needs, orphan entities) and every copy of its text in the job queue."""
        queue = self.ingest.queue

        def purge(text: str, episodes: list[str]) -> int:
            queue.forget_fact_id(user_id, fact_id, self.store.fact_ref(user_id, fact_id))
            return queue.purge_fact(user_id, text=text, episode_ids=episodes)

        return self.store.erase_fact(user_id, fact_id, purge=purge)

    def erase_user(self, user_id: str) -> dict[str, int]:
        """Erase everything of this user: the graph, and the queued sessions too.

        Erasure wins every race: a session or fact accepted before this call never
        lands, even one whose model call is in flight (``UserErasedError``); a write
        accepted while it runs waits for it (``ErasureInProgressError``, retryable) and
        then starts the user afresh."""
        counts = self.store.erase_user(user_id)
        counts["jobs"] = self.ingest.queue.purge_user(user_id)
        return counts

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

    # -- reads ----------------------------------------------------------------------------
    def get(self, fact_id: str, *, user_id: str, as_of: datetime | None = None) -> Fact:
        """The fact; with ``as_of`` as it was believed then (nothing learned later)."""
        return self.store.get(user_id, fact_id, as_of=as_of)

    def history(self, fact_id: str, *, user_id: str, as_of: datetime | None = None) -> FactHistory:
        """The supersession chain; with ``as_of`` as it was believed then."""
        return self.store.history(user_id, fact_id, as_of=as_of)

    def facts(self, *, user_id: str, **options: Unpack[FactsOptions]) -> list[Fact]:
        """Current facts by default, a page of ``limit`` (100) from ``offset`` (0); the
        options: ``hmem.surface.FactsOptions``."""
        return self.store.list_facts(user_id, **options)

    def export(self, user_id: str) -> UserExport:
        return self.store.export(user_id)

    def audit(self, *, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        return self.store.audit(user_id, limit)

    # -- recall ---------------------------------------------------------------------------
    def search(self, query: str, *, user_id: str, **options: Unpack[SearchOptions]) -> SearchResult:
        """The facts that answer ``query``, with no model on the read path: hybrid
        (dense + lexical + entity), one SUPERSEDES hop of history, packed into
        ``token_budget`` tokens as a dated context block (the options:
        ``hmem.surface.SearchOptions``). Current facts by default; ``as_of`` (belief
        time) / ``as_of_event`` (world time) select the past, and a question about the
        past ("before", "used to", …) ranks replaced facts too. Without an embedder the
        search is lexical + entity only (``result.dense``)."""
        self.check_embedding_model()
        given: SearchOptions = {**SEARCH_DEFAULTS, **options}
        with self.telemetry.span(
            "search",
            user_id=user_id,
            hmem__k=given["k"],
            hmem__token_budget=given["token_budget"],
            hmem__as_of=given.get("as_of") is not None,
            hmem__as_of_event=given.get("as_of_event") is not None,
        ) as span:
            result = self.recall.search(query, user_id=user_id, **given)
            span.set(hmem__hits=len(result.hits), hmem__dense=bool(result.dense))
            return result

    async def asearch(
        self, query: str, *, user_id: str, **options: Unpack[SearchOptions]
    ) -> SearchResult:
        """``search`` for async frameworks (runs in a worker thread); ``AsyncMemory``
        has every call awaited."""
        return await asyncio.to_thread(
            functools.partial(self.search, query, user_id=user_id, **options)
        )

    def maintain(self, *, user_id: str, now: datetime | None = None) -> MaintenanceResult:
        """Close (never erase) this user's episodic facts unused for ``episodic_ttl_days``;
        they stay reachable by ``as_of`` / ``as_of_event`` and can be restored."""
        when = require_aware(now, "now") or datetime.now(UTC)
        cutoff = when - timedelta(days=self.config.episodic_ttl_days)
        self.recall.flush()  # recent touches count as use
        expired = self.recall.search_backend.expire_episodic(user_id, cutoff=cutoff, now=when)
        return MaintenanceResult(user_id=user_id, cutoff=cutoff, expired=expired)


if TYPE_CHECKING:  # mypy holds Memory to the surface (hmem/surface.py)
    from hmem.surface import MemorySurface

    _surface: type[MemorySurface] = Memory
