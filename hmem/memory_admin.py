"""``Memory``'s calls over what a user has stored, by hand (a mixin of
``hmem/memory.py``): closing and restoring a fact, real erasure (graph and queue),
export, the audit trail, the running profile.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pydantic

from hmem.errors import ValidationError
from hmem.extract.clients import EmbeddingClient
from hmem.extract.policy import require_allowed
from hmem.extract.profile import Profile
from hmem.graph import GraphStore
from hmem.graph.imported import ImportedFact
from hmem.ingest import Ingestor
from hmem.models import Entity, EntityRef, Fact, SupersedeReason, UserExport

__all__ = ["MemoryAdmin"]


class MemoryAdmin:
    """The by-hand edits, erasure, export, audit and profile calls of ``Memory``."""

    # What these calls use of the Memory they are part of (hmem/memory.py sets them up).
    store: GraphStore
    ingest: Ingestor

    embedder: EmbeddingClient | None

    if TYPE_CHECKING:

        def ensure_schema_once(self) -> None: ...

        def check_embedding_model(self) -> None: ...

    def close(
        self,
        fact_id: str,
        *,
        user_id: str,
        at: datetime | None = None,
        observed_at: datetime | None = None,
        reason: SupersedeReason | str = SupersedeReason.RETRACTION,
    ) -> Fact:
        self.ensure_schema_once()
        return self.store.close(
            user_id, fact_id, at=at, observed_at=observed_at, reason=SupersedeReason(reason)
        )

    def restore(self, fact_id: str, *, user_id: str, observed_at: datetime | None = None) -> Fact:
        """Believe a closed fact again from ``observed_at`` (default now) on; earlier
        views still show it closed (docs/time.md)."""
        self.ensure_schema_once()
        return self.store.restore(user_id, fact_id, observed_at=observed_at)

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

    def export(self, user_id: str) -> UserExport:
        return self.store.export(user_id)

    def import_export(
        self, export: UserExport, *, user_id: str, batch_size: int = 2_000
    ) -> dict[str, int]:
        """Bring back an ``export`` (of this store or another hmem) as ``user_id``: each
        fact with both windows, its belief history (so every view as of a past belief
        time reads as it did), its entities and episodes, every SUPERSEDES edge (an
        undone one too) and the profile. Idempotent by id: a fact already stored is
        left as it is; a rerun adds nothing. Vectors are made here when an embedding
        model is configured (an export carries none). Returns what was new."""
        self.ensure_schema_once()
        known = {e.name: e for e in export.entities}
        facts = [
            ImportedFact(
                id=f.id,
                text=f.text,
                valid_from=f.valid_from,
                known_from=f.known_from,
                valid_to=f.valid_to,
                known_to=f.known_to,
                close_reason=f.close_reason,
                category=f.category,
                importance=f.importance,
                source=f.source,
                speaker=f.speaker,
                entities=[_entity_ref(name, known.get(name)) for name in f.entities],
                belief=export.belief_history.get(f.id, ()),
            )
            for f in export.facts
        ]
        for fact in facts:
            fact.check()  # every fact before the first write: a bad file writes nothing
        counts = {"facts": 0, "existing": 0}
        episodes = list(export.episodes)
        for start in range(0, len(facts), batch_size):
            chunk = facts[start : start + batch_size]
            if self.embedder is not None:
                self.check_embedding_model()
                vectors = self.embedder.embed([f.text for f in chunk])
                chunk = [replace(f, embedding=list(v)) for f, v in zip(chunk, vectors, strict=True)]
            done = self.store.import_facts(user_id, chunk, episodes=episodes)
            episodes = []  # the first batch brings them
            counts["facts"] += done["facts"]
            counts["existing"] += done["existing"]
        counts["links"] = self.store.import_links(user_id, export.supersessions)
        if export.profile is not None and self.store.profile(user_id) is None:
            self.store.set_profile(user_id, export.profile.text)
        return counts

    def audit(self, *, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        return self.store.audit(user_id, limit)

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


def _entity_ref(name: str, entity: Entity | None) -> EntityRef:
    """A fact's entity by name, with its type and aliases when the export lists it."""
    if entity is None:
        return EntityRef(name=name)
    return EntityRef(name=entity.name, type=entity.type, aliases=list(entity.aliases))
