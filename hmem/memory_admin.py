"""``Memory``'s calls over what a user has stored, by hand (a mixin of
``hmem/memory.py``): closing and restoring a fact, real erasure (graph and queue),
export, the audit trail, the running profile.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import pydantic

from hmem.errors import ValidationError
from hmem.extract.policy import require_allowed
from hmem.extract.profile import Profile
from hmem.graph import GraphStore
from hmem.ingest import Ingestor
from hmem.models import Fact, SupersedeReason, UserExport

__all__ = ["MemoryAdmin"]


class MemoryAdmin:
    """The by-hand edits, erasure, export, audit and profile calls of ``Memory``."""

    # What these calls use of the Memory they are part of (hmem/memory.py sets them up).
    store: GraphStore
    ingest: Ingestor

    if TYPE_CHECKING:

        def ensure_schema_once(self) -> None: ...

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
