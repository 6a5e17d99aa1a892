"""``Memory``: the facade a Python application uses.

It owns one Neo4j driver (one per process is the rule) and a ``GraphStore``; it takes
a ``Config`` and never reads the environment itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import pydantic
from neo4j import Driver, GraphDatabase

from hmem.config import Config
from hmem.errors import ConfigError, ValidationError
from hmem.extract.clients import EmbeddingClient, make_embedder
from hmem.extract.policy import require_allowed
from hmem.graph import GraphStore
from hmem.models import (
    Category,
    EntityRef,
    Fact,
    FactDraft,
    FactHistory,
    SupersedeReason,
    SupersedeTarget,
    UserExport,
    WriteResult,
)

__all__ = ["Memory", "resolve_password"]


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
    ) -> None:
        """``driver`` and ``embedder`` default to what ``config`` describes; pass your own
        to share a driver or to embed with a model of your choice."""
        self.config = config or Config()
        self._owns_embedder = embedder is None
        self.embedder = embedder if embedder is not None else make_embedder(self.config)
        if self.embedder is not None and self.embedder.dim != self.config.embedding_dim:
            raise ConfigError(
                f"the embedder makes {self.embedder.dim}-d vectors but embedding_dim is "
                f"{self.config.embedding_dim}"
            )
        self._owns_driver = driver is None
        self._driver = driver or GraphDatabase.driver(
            self.config.neo4j_uri,
            auth=(self.config.neo4j_user, resolve_password(self.config)),
            # Null properties (open windows) make the server warn "property does not
            # exist" on every read; those notices are noise for hmem's statements.
            notifications_min_severity="OFF",
        )
        self.store = GraphStore(
            self._driver,
            database=self.config.neo4j_database,
            embedding_dim=self.config.embedding_dim,
            max_fact_chars=self.config.max_fact_chars,
            max_entities_per_fact=self.config.max_entities_per_fact,
        )

    # -- lifecycle ------------------------------------------------------------------------
    def init_schema(self) -> None:
        self.store.ensure_schema()

    def shutdown(self) -> None:
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
    ) -> WriteResult:
        """Write one fact directly (no extractor): for agents that already know the fact,
        for imports, demos and tests. ``supersedes`` closes older facts of this user.

        The write policy still applies (a credential is refused with ``PolicyRefusal``),
        and the text is embedded when an embedder is configured and no vector is given.
        """
        require_allowed(text)
        if embedding is None and self.embedder is not None:
            [embedding] = self.embedder.embed([text])
        draft = _draft(
            text=text,
            category=category,
            importance=importance,
            valid_from=valid_from,
            valid_to=valid_to,
            known_from=observed_at,
            entities=[e if isinstance(e, EntityRef) else EntityRef(name=e) for e in entities],
            supersedes=[
                t if isinstance(t, SupersedeTarget) else SupersedeTarget(target_id=t, reason=reason)
                for t in supersedes
            ],
            relates=list(relates),
            embedding=list(embedding) if embedding is not None else None,
            source=source,
            id=fact_id,
        )
        return self.store.write(user_id, [draft], observed_at=observed_at)

    def remember_many(
        self, drafts: Sequence[FactDraft], *, user_id: str, observed_at: datetime | None = None
    ) -> WriteResult:
        """Write several facts in one transaction; missing vectors are embedded in one batch."""
        for draft in drafts:
            require_allowed(draft.text)
        missing = [i for i, d in enumerate(drafts) if d.embedding is None]
        if missing and self.embedder is not None:
            vectors = self.embedder.embed([drafts[i].text for i in missing])
            filled = list(drafts)
            for i, vector in zip(missing, vectors, strict=True):
                filled[i] = drafts[i].model_copy(update={"embedding": vector})
            drafts = filled
        return self.store.write(user_id, drafts, observed_at=observed_at)

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
        return self.store.erase_fact(user_id, fact_id)

    def erase_user(self, user_id: str) -> dict[str, int]:
        return self.store.erase_user(user_id)

    # -- reads ----------------------------------------------------------------------------
    def get(self, fact_id: str, *, user_id: str) -> Fact:
        return self.store.get(user_id, fact_id)

    def history(self, fact_id: str, *, user_id: str) -> FactHistory:
        return self.store.history(user_id, fact_id)

    def facts(
        self,
        *,
        user_id: str,
        as_of: datetime | None = None,
        as_of_event: datetime | None = None,
        include_closed: bool = False,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Fact]:
        return self.store.list_facts(
            user_id,
            as_of=as_of,
            as_of_event=as_of_event,
            include_closed=include_closed,
            limit=limit,
            offset=offset,
        )

    def export(self, user_id: str) -> UserExport:
        return self.store.export(user_id)

    def audit(self, *, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        return self.store.audit(user_id, limit)
