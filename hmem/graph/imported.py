"""Writing facts brought from another memory (e.g. a Graphiti graph) as they were there:
both windows given, closed facts arriving closed, supersessions linked afterwards.

Idempotent by id: a fact whose id is stored is left alone, episodes and edges are
MERGEd, so an interrupted import is finished by running it again. A sync (a rerun after
the source changed) reads what is stored (``imported_state``), closes the facts the
source closed since (``close_imported``) and records its watermark in the audit trail
(``record_sync`` / ``last_syncs``), which also names the facts erased by hand.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from neo4j import ManagedTransaction

from hmem._text import fact_hash, lexical_length, lexical_user_key
from hmem.errors import DimensionMismatchError, TemporalOrderError, ValidationError
from hmem.graph._base import ERASED_REF, StoreBase, new_id
from hmem.graph._records import check_user_id, native, packed
from hmem.models import (
    BeliefEntry,
    Category,
    EntityRef,
    Episode,
    SupersedeReason,
    SupersessionLink,
    check_window,
    fold_speaker,
)

__all__ = ["ImportData", "ImportedClosure", "ImportedFact"]

_STATE_CHUNK = 5_000  # ids per read of what is stored
_NO_END = datetime(9999, 12, 31, tzinfo=UTC)  # a belief history's "no end" (_in_view.cypher)
SYNC_OP = "import_sync"


@dataclass(frozen=True)
class ImportedClosure:
    """A stored open fact the source has closed since: when it stopped being true
    (``valid_to``, None: no end in the world) and when that was learned (``known_to``)."""

    id: str
    known_to: datetime
    valid_to: datetime | None
    reason: SupersedeReason


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
    # hmem's own export: the fact's belief history (docs/time.md), oldest first; empty:
    # built from the state above (open: one entry; closed: the entry and the close)
    belief: Sequence[BeliefEntry] = ()

    def check(self) -> None:
        check_window(self.valid_from, self.valid_to, f"fact {self.id!r}: valid")
        check_window(self.known_from, self.known_to, f"fact {self.id!r}: known")
        if self.known_to is None and self.close_reason is not None:
            raise TemporalOrderError(f"fact {self.id!r} has a close reason but is open")
        if self.belief:
            self._check_belief()

    def _check_belief(self) -> None:
        """The history agrees with the state: it starts when the fact was learned, runs
        in belief time order, and its last entry is the fact's window and close."""
        entries = list(self.belief)
        last_at, last_to, last_why = entries[-1]
        closed = None if last_why is None else last_at
        if (
            entries[0][0] != self.known_from
            or entries[0][2] is not None
            or any(b[0] < a[0] for a, b in pairwise(entries))
            or (last_to, closed, last_why) != (self.valid_to, self.known_to, self.close_reason)
        ):
            raise ValidationError(
                f"fact {self.id!r}: its belief history does not match its windows "
                "(the first entry at known_from, in time order, the last one its state)"
            )

    def belief_row(self) -> dict[str, Any]:
        """The ``import_fact_create`` fields of the belief history (None: none given)."""
        if not self.belief:
            return {"belief_at": None, "belief_to": None, "belief_why": None,
                    "valid_to_before_close": None}  # fmt: skip
        entries = list(self.belief)
        before = entries[-2][1] if len(entries) > 1 and entries[-1][2] else None
        return {
            "belief_at": [at for at, _, _ in entries],
            "belief_to": [to or _NO_END for _, to, _ in entries],
            "belief_why": ["" if why is None else why.value for _, _, why in entries],
            "valid_to_before_close": before,
        }


class ImportData(StoreBase):
    """``import_facts`` (one transaction per batch), ``import_supersessions``, and for a
    sync ``imported_state``, ``close_imported``, ``record_sync`` and ``last_syncs``."""

    def imported_state(self, user_id: str, ids: Sequence[str]) -> dict[str, bool]:
        """``{id: whether it is open}`` for the ``ids`` stored for this user (no write: a
        user that does not exist is not made)."""
        user_id = check_user_id(user_id)
        found: dict[str, bool] = {}
        for start in range(0, len(ids), _STATE_CHUNK):
            chunk = list(ids[start : start + _STATE_CHUNK])
            for row in self._read_values("import_fact_state", user_id=user_id, ids=chunk):
                found[row["id"]] = bool(row["open"])
        return found

    def fact_windows(self, user_id: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """``{id: valid_from, valid_to, known_from, known_to}`` of these stored facts."""
        user_id = check_user_id(user_id)
        rows = self._read_values("fact_targets", user_id=user_id, ids=list(ids)) if ids else []
        return {r["id"]: native(r) for r in rows}

    def close_imported(self, user_id: str, closures: Sequence[ImportedClosure]) -> list[str]:
        """Close stored open facts with the source's times (``fact_close_many``, as
        ``close`` does); one already closed is left as it is. Returns the ids closed
        now."""
        user_id = check_user_id(user_id)
        rows = [
            {"id": c.id, "valid_to": c.valid_to, "known_to": c.known_to, "reason": c.reason.value}
            for c in closures
        ]

        def work(tx: ManagedTransaction) -> list[str]:
            ids = [c.id for c in closures]
            stored = self._run(tx, "fact_targets", user_id=user_id, ids=ids)
            open_ids = sorted(r["id"] for r in stored if r["known_to"] is None)
            if not open_ids:
                return []
            wanted = set(open_ids)
            todo = [r for r in rows if r["id"] in wanted]
            self._run(tx, "fact_close_many", user_id=user_id, rows=todo)
            self._audit(tx, user_id, "import_close", open_ids, {"facts": len(open_ids)})
            return open_ids

        closed: list[str] = self._write(user_id, work) if rows else []
        return closed

    def record_sync(self, user_id: str, detail: dict[str, Any]) -> None:
        """An import's watermark: one audit event (ids and counts, never text)."""
        user_id = check_user_id(user_id)
        self._write(user_id, lambda tx: self._audit(tx, user_id, SYNC_OP, [], detail))

    def last_syncs(self, user_id: str, limit: int = 1_000) -> list[dict[str, Any]]:
        """The user's latest import watermarks, newest first (``detail`` decoded)."""
        user_id = check_user_id(user_id)
        rows = self._read_values("audit_by_op", user_id=user_id, ops=[SYNC_OP], limit=limit)
        return [{**native(r), "detail": json.loads(r["detail"])} for r in rows]

    def erased_fact_refs(self, user_id: str) -> set[str]:
        """The facts erased by hand (``erase``), as keyed refs (``fact_ref``; the audit
        keeps no erased id): an import does not bring them back. An id an event of an
        older version kept plain is keyed here too."""
        user_id = check_user_id(user_id)
        rows = self._read_values("audit_by_op", user_id=user_id, ops=["erase_fact"], limit=10**9)
        return {
            fid if fid.startswith(ERASED_REF) else self.fact_ref(user_id, fid)
            for r in rows
            for fid in r["fact_ids"]
        }

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
                user_key=lexical_user_key(user_id),
                indexed=state["vector_index"] is not None,
                facts=[
                    {
                        "id": f.id,
                        "text": f.text,
                        "lex_len": lexical_length(f.text),
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
                        **f.belief_row(),
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

    def import_links(self, user_id: str, links: Sequence[SupersessionLink]) -> int:
        """hmem's own SUPERSEDES edges (an export's ``supersessions``) as they were, an
        undone one with its ``undone_at``; both facts already imported. Returns how
        many edges were new."""
        user_id = check_user_id(user_id)
        rows = [
            {
                "new_id": link.new_id,
                "old_id": link.old_id,
                "reason": link.reason.value,
                "at": link.at,
                "relation": link.relation,
                "inferred": link.inferred,
                "cue": link.cue,
                "score": link.score,
                "undone_at": link.undone_at,
            }
            for link in links
        ]

        def work(tx: ManagedTransaction) -> int:
            [row] = self._run(tx, "import_links", user_id=user_id, links=rows)
            return int(row["created"])

        created: int = self._write(user_id, work) if rows else 0
        return created

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
