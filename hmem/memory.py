"""``Memory``: the facade a Python application uses.

It owns one Neo4j driver (one per process is the rule) and a ``GraphStore``; it takes
a ``Config`` and never reads the environment itself. Its calls are declared once in
``hmem/surface.py``; the writes and the admin calls are mixins of their own modules.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Unpack

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import Neo4jError

from hmem.config import Config
from hmem.errors import (
    ConfigError,
    ConflictError,
    ModelNotConfiguredError,
    RetryableError,
    SchemaError,
)
from hmem.extract.clients import EmbeddingClient, make_chat_client, make_embedder
from hmem.extract.entities import pipeline, pipeline_name
from hmem.extract.extractor import Extractor, JsonChat
from hmem.graph import GraphStore
from hmem.graph._driver import translate_errors
from hmem.graph.apikeys import KeyStore
from hmem.graph.embedding_model import check_model, embed_missing, pending, reembed
from hmem.graph.schema import schema_missing
from hmem.graph.search import FactSearch
from hmem.ingest import Ingestor
from hmem.ingest.pipeline import Pipeline
from hmem.ingest.queue_backend import open_queue
from hmem.memory_admin import MemoryAdmin
from hmem.memory_writes import NO_CHAT_MODEL, MemoryWrites
from hmem.models import Fact, FactHistory, require_aware
from hmem.recall import MaintenanceResult, Recall, ScoreWeights, SearchResult
from hmem.secret import load_secret
from hmem.surface import SEARCH_DEFAULTS, FactsOptions, SearchOptions
from hmem.telemetry import Telemetry
from hmem.warm_up import RECENT_USERS, recent_users, warm_users

_log = logging.getLogger("hmem.memory")

__all__ = ["NO_CHAT_MODEL", "NO_EMBEDDER", "Memory", "make_driver", "resolve_password"]

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


class Memory(MemoryWrites, MemoryAdmin):
    """Bitemporal memory for one application: ``remember``, ``get``, ``history``,
    ``facts``, ``close``, ``restore``, ``erase``, ``erase_user``, ``export``.

    Set up, reads and search here; the writes (``remember``, ``add``, the jobs) in
    ``MemoryWrites`` (``hmem/memory_writes.py``); by-hand edits, erasure, export, audit
    and profile in ``MemoryAdmin`` (``hmem/memory_admin.py``)."""

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
        self.secret = secret  # HMEM_SERVER_SECRET's bytes: keyed hashes, sealed bookmarks
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
        self._schema_checked = False
        self._schema_lock = threading.Lock()
        self.ingest = Ingestor(
            open_queue(self.config, secret),
            Pipeline(
                store=self.store,
                embedder=self.embedder,
                extractor_factory=self._make_extractor,
                dedup_cosine=self.config.dedup_cosine,
                neighbours_k=self.config.neighbours_k,
                max_closures=self.config.infer_max_closures,
                profile_chat=self._chat_client if self.config.profile_enabled else None,
            ),
            max_session_chars=self.config.max_session_chars,
            telemetry=self.telemetry,
        )
        self.ingest.key_check = KeyStore(
            self._driver, database=self.config.neo4j_database
        ).check_grant

    def ensure_schema_once(self) -> None:
        """Set up hmem's schema on first use: the first write or search of this
        ``Memory`` looks for the indexes they need (one ``SHOW INDEXES`` each) and, on a
        database hmem has not set up (a fresh server, your own, Aura), runs
        ``init_schema()``, which is idempotent; two processes doing so at once both
        succeed. A database user not allowed to create indexes gets a ``SchemaError``
        naming what to run instead."""
        if self._schema_checked:
            return
        with self._schema_lock:
            if self._schema_checked:
                return
            db = self.config.neo4j_database
            with translate_errors(self._driver):
                missing = schema_missing(self._driver, db)
            if missing:
                _log.info(
                    "schema: %s missing on database %r; setting up hmem's schema (init_schema)",
                    ", ".join(missing),
                    db,
                )
                self._init_schema_retrying(missing)
            self._schema_checked = True

    def _init_schema_retrying(self, missing: list[str]) -> None:
        """``init_schema`` on first use; another process setting the schema up at the
        same moment can make a statement fail once (an index it just created, a lock):
        the next attempt finds the work done."""
        for attempt in range(4):
            try:
                self.init_schema()
                return
            except (RetryableError, ConflictError) as exc:
                failure: Exception = exc
            except Neo4jError as exc:
                if "Schema" not in (exc.code or "") or "Security" in (exc.code or ""):
                    raise SchemaError(
                        f"hmem's schema is not set up on database {self.config.neo4j_database!r} "
                        f"({', '.join(missing)} missing) and creating it failed: "
                        f"{exc.code}. Run Memory(config).init_schema() (or `hmem init-schema`) "
                        "once as a Neo4j user allowed to create indexes and constraints"
                    ) from exc
                failure = exc
            time.sleep(0.2 * (attempt + 1))
        raise SchemaError(
            f"setting up hmem's schema on first use failed ({failure}); run "
            "Memory(config).init_schema() (or `hmem init-schema`) once, then retry"
        ) from failure

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

    def embed_missing(
        self, *, batch_size: int = 256, progress: Callable[[int], None] | None = None
    ) -> int:
        """Embed the facts that have no vector at all (written while no embedding model
        was configured: an offline first ``make demo``) with this instance's embedder,
        once it is checked as the store's model; returns how many. Without it dense
        search never finds them. ``hmem serve --demo`` / ``--init-schema`` runs it at
        start. Safe to rerun; 0 without an embedder."""
        if self.embedder is None:
            return 0
        self.ensure_schema_once()
        self.check_embedding_model()
        return embed_missing(
            self._driver,
            self.config.neo4j_database,
            embed=self.embedder.embed,
            batch_size=batch_size,
            progress=progress or (lambda n: None),
        )

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

    def warm_up(self, users: Sequence[str] | None = None) -> None:
        """Pay the first search's one-time costs now: the embedder's first run, the read
        statements' plans in Neo4j, the query parser. Searches a user that cannot exist
        first, then real data (``hmem.warm_up``: results dropped, nothing touched) of
        ``users`` (stored ids), by default the few written to most recently. The spaCy
        pipeline of the first write loads too.

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
        # A user with no rows leaves the code that handles rows cold (Neo4j's operators,
        # the decoding, the ranking): the first real search then cost 2-4x a warm one.
        if users is None:
            db = self.config.neo4j_database
            users = recent_users(self._driver, db, RECENT_USERS)
        warm_users(self.recall, users)

    def _make_extractor(self) -> Extractor:
        return Extractor(self._chat_client())

    # -- lifecycle ------------------------------------------------------------------------
    def init_schema(self) -> None:
        """Create hmem's constraints and indexes (idempotent). Not needed before use: the
        first write or search does it on a database that lacks them
        (``ensure_schema_once``)."""
        self.store.ensure_schema()
        self._schema_checked = True

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

    # -- reads ----------------------------------------------------------------------------
    def get(self, fact_id: str, *, user_id: str, as_of: datetime | None = None) -> Fact:
        """The fact; with ``as_of`` as it was believed then (nothing learned later)."""
        self.ensure_schema_once()
        return self.store.get(user_id, fact_id, as_of=as_of)

    def history(self, fact_id: str, *, user_id: str, as_of: datetime | None = None) -> FactHistory:
        """The supersession chain; with ``as_of`` as it was believed then."""
        self.ensure_schema_once()
        return self.store.history(user_id, fact_id, as_of=as_of)

    def facts(self, *, user_id: str, **options: Unpack[FactsOptions]) -> list[Fact]:
        """Current facts by default, a page of ``limit`` (100) from ``offset`` (0); the
        options: ``hmem.surface.FactsOptions``."""
        self.ensure_schema_once()
        return self.store.list_facts(user_id, **options)

    # -- recall ---------------------------------------------------------------------------
    def search(self, query: str, *, user_id: str, **options: Unpack[SearchOptions]) -> SearchResult:
        """The facts that answer ``query``, with no model on the read path: hybrid
        (dense + lexical + entity), one SUPERSEDES hop of history, packed into
        ``token_budget`` tokens as a dated context block (the options:
        ``hmem.surface.SearchOptions``). Current facts by default; ``as_of`` (belief
        time) / ``as_of_event`` (world time) select the past, and a question about the
        past ("before", "used to", …) ranks replaced facts too. Without an embedder the
        search is lexical + entity only (``result.dense``)."""
        self.ensure_schema_once()
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
