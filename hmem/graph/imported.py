"""Writing facts brought from another memory (e.g. a Graphiti graph) as they were there:
both windows given, closed facts arriving closed, supersessions linked afterwards.

Idempotent by id: a fact whose id is stored is left alone, episodes and edges are
MERGEd, so an interrupted import is finished by running it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from hmem._text import fact_hash
from hmem.errors import DimensionMismatchError, TemporalOrderError
from hmem.graph._base import StoreBase, new_id
from hmem.graph._records import check_user_id, packed
from hmem.models import (
    Category,
    EntityRef,
    Episode,
    SupersedeReason,
    check_window,
    fold_speaker,
)

__all__ = ["ImportData", "ImportedFact"]


@dataclass(frozen=True)
class ImportedFact:
    """One fact with its windows as the source had them."""

    id: str
    text: str
    valid_from: datetime
    known_from: datetime
    valid_to: datetime | None = None
    known_to: datetime | None = None
    close_reason: SupersedeReason | None = None
    category: Category = Category.SEMANTIC
    importance: int = 5
    source: str = "import"
    speaker: str | None = None  # who said it (a chat turn); stored folded
    entities: Sequence[EntityRef] = ()
    episode_ids: Sequence[str] = ()
    embedding: Sequence[float] | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def check(self) -> None:
        check_window(self.valid_from, self.valid_to, f"fact {self.id!r}: valid")
        check_window(self.known_from, self.known_to, f"fact {self.id!r}: known")
        if self.known_to is None and self.close_reason is not None:
            raise TemporalOrderError(f"fact {self.id!r} has a close reason but is open")


class ImportData(StoreBase):
    """``import_facts`` (one transaction per batch) and ``import_supersessions``."""

    def import_facts(
        self,
        user_id: str,
        facts: Sequence[ImportedFact],
        episodes: Sequence[Episode] = (),
        entities: Sequence[EntityRef] = (),
    ) -> dict[str, int]:
        """Write the facts not stored yet, with their entities, vectors and episodes, and
        the given ``entities`` and ``episodes`` (mentioned or not), in one transaction;
        returns ``{"facts": created, "existing": already stored}``."""
        user_id = check_user_id(user_id)
        for fact in facts:
            fact.check()
            if fact.embedding is not None and len(fact.embedding) != self.embedding_dim:
                raise DimensionMismatchError(
                    f"fact {fact.id!r}: {len(fact.embedding)}-d vector, the index has "
                    f"{self.embedding_dim}"
                )
        ingested = self._clock()
        checked: dict[str, Any] = {}

        def work(tx: ManagedTransaction, plugin: bool) -> dict[str, int]:
            if entities:
                self._run(
                    tx,
                    "import_entity_merge",
                    user_id=user_id,
                    now=ingested,
                    rows=[
                        {
                            "entity_id": new_id(),
                            "name": e.name,
                            "canonical": e.canonical,
                            "type": e.type,
                            "aliases": sorted(set(e.aliases)),
                        }
                        for e in entities
                    ],
                )
            if episodes:
                self._run(
                    tx,
                    "import_episode_merge",
                    user_id=user_id,
                    episodes=[
                        {
                            "id": e.id,
                            "session_id": e.session_id,
                            "observed_at": e.observed_at,
                            "text": e.text,
                            "redactions": list(e.redactions),
                        }
                        for e in episodes
                    ],
                )
            stored = {
                r["id"]
                for r in self._run(tx, "fact_targets", user_id=user_id, ids=[f.id for f in facts])
            }
            fresh = [f for f in facts if f.id not in stored]
            if not fresh:
                return {"facts": 0, "existing": len(facts)}
            [state] = self._run(
                tx,
                "user_vector_index_state",
                user_id=user_id,
                count_cap=self.vector_index_min_facts + 1,
            )
            checked.update(state)
            self._run(
                tx,
                "import_fact_create",
                user_id=user_id,
                indexed=state["vector_index"] is not None,
                facts=[
                    {
                        "id": f.id,
                        "text": f.text,
                        "category": f.category.value,
                        "importance": f.importance,
                        "hash": fact_hash(f.text),
                        "valid_from": f.valid_from,
                        "valid_to": f.valid_to,
                        "known_from": f.known_from,
                        "known_to": f.known_to,
                        "close_reason": f.close_reason.value if f.close_reason else None,
                        "ingested_at": ingested,
                        "source": f.source,
                        "speaker": fold_speaker(f.speaker),
                    }
                    for f in fresh
                ],
            )
            vectors = [
                # with hmem's plugin the bytes alone (a float list costs the server an
                # object per value to unpack), without it the float list alone
                {
                    "id": f.id,
                    "embedding": None if plugin else list(f.embedding),
                    "packed": packed(f.embedding) if plugin else None,
                }
                for f in fresh
                if f.embedding is not None
            ]
            if vectors:
                self._run(tx, "fact_set_embedding", native=plugin, user_id=user_id, rows=vectors)
            mentions = [
                {
                    "fact_id": f.id,
                    "entity_id": new_id(),
                    "name": e.name,
                    "canonical": e.canonical,
                    "type": e.type,
                    "aliases": sorted(set(e.aliases)),
                }
                for f in fresh
                for e in f.entities
            ]
            if mentions:
                self._run(tx, "entity_link", user_id=user_id, rows=mentions, now=ingested)
            pairs = [{"fact_id": f.id, "episode_id": e} for f in fresh for e in f.episode_ids]
            if pairs:
                self._run(tx, "import_fact_from", user_id=user_id, pairs=pairs)
            self._audit(tx, user_id, "import", [f.id for f in fresh], {"facts": len(fresh)})
            return {"facts": len(fresh), "existing": len(facts) - len(fresh)}

        result: dict[str, int] = self._with_plugin(
            lambda plugin: self._write(user_id, lambda tx: work(tx, plugin))
        )
        if result["facts"]:
            self._after_write(user_id, checked["vector_index"], checked["facts"] + result["facts"])
        return result

    def import_supersessions(
        self,
        user_id: str,
        links: Sequence[tuple[str, str, datetime]],
        reason: SupersedeReason = SupersedeReason.CONTRADICTION,
        relation: str | None = None,
    ) -> int:
        """``(new_id, old_id, at)``: new SUPERSEDES old, both already imported (and old
        already closed); returns how many edges were new."""
        user_id = check_user_id(user_id)
        rows = [
            {"new_id": n, "old_id": o, "at": at, "reason": reason.value, "relation": relation}
            for n, o, at in links
        ]

        def work(tx: ManagedTransaction) -> int:
            [row] = self._run(tx, "import_supersede", user_id=user_id, links=rows)
            return int(row["created"])

        created: int = self._write(user_id, work) if rows else 0
        return created
