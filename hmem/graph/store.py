"""The bitemporal fact graph on Neo4j.

Every method takes ``user_id`` first and every statement it runs is scoped by it (the
catalog refuses a data statement without ``$user_id``). Edges are only ever created
between two nodes each matched with the same ``user_id``, so no edge can cross users.
Nothing here deletes on a model's word: supersession closes, erasure is separate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from neo4j import ManagedTransaction

from hmem._text import fact_hash, lexical_length, lexical_user_key
from hmem.errors import (
    ConflictError,
    NotFoundError,
    TemporalOrderError,
    TextTooLongError,
    ValidationError,
)
from hmem.graph._base import VECTOR_SET_PROCEDURE, new_id
from hmem.graph._records import check_user_id, native
from hmem.graph.edits import FactEdits
from hmem.graph.imported import ImportData
from hmem.graph.userdata import UserData
from hmem.models import (
    FactDraft,
    SupersedeReason,
    WriteResult,
    require_aware,
    vector_array,
)

__all__ = ["VECTOR_SET_PROCEDURE", "EpisodeDraft", "GraphStore"]


def _position(times: dict[datetime, int], at: datetime | None) -> int | None:
    """``at``'s position in ``write_apply``'s ``$times`` (added when new)."""
    return None if at is None else times.setdefault(at, len(times))


def _fact_row(
    row: dict[str, Any], times: dict[datetime, int], *, bytes_only: bool
) -> dict[str, Any]:
    """One new fact as ``write_apply`` takes it: its fields (times as positions in
    ``times``), its vector (float32 bytes for hmem's procedures when ``bytes_only``,
    else a float list for setNodeVectorProperty) and its entities, one per canonical
    name."""
    draft: FactDraft = row["draft"]
    vector = row["vector"]
    entities: dict[str, dict[str, Any]] = {}
    for e in draft.entities:  # the first mention of a name wins; aliases add up
        entity = entities.setdefault(
            e.canonical,
            {"entity_id": new_id(), "name": e.name, "canonical": e.canonical, "type": e.type},
        )
        entity["aliases"] = sorted(set(entity.get("aliases", [])) | set(e.aliases))
    return {
        "id": row["id"],
        "text": draft.text,
        "lex_len": lexical_length(draft.text),
        "category": draft.category.value,
        "importance": draft.importance,
        "hash": row["hash"],
        "valid_from": _position(times, row["valid_from"]),
        "valid_to": _position(times, draft.valid_to),
        "known_from": _position(times, row["known_from"]),
        "source": draft.source,
        "speaker": draft.speaker,
        "valid_precision": draft.valid_precision,
        "valid_to_precision": draft.valid_to_precision,
        "embedding": None if bytes_only else draft.embedding,
        "packed": None if vector is None or not bytes_only else vector.astype("<f4").tobytes(),
        "entities": list(entities.values()),
    }


@dataclass(frozen=True)
class EpisodeDraft:
    """Provenance for a write: the (already redacted) text the facts came from."""

    text: str
    observed_at: datetime
    session_id: str | None = None
    redactions: tuple[str, ...] = ()
    id: str | None = None


def session_episode_id(session_id: str) -> str:
    """The episode of a conversation written in several calls (``remember_many`` with a
    ``session_id``): the same id for the same session, whatever its text."""
    return "session-" + hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:32]


# What one write may change (issue 45, N8): each stored fact has at most one successor
# per write, and one write names at most this many stored facts (supersedes, relates,
# conflicts over all its drafts): 300 drafts each superseding the same 64 facts made
# 19,200 SUPERSEDES edges, and every later search and export paid for them.
MAX_WRITE_LINKS = 1_000


def _check_bounds(drafts: Sequence[FactDraft]) -> None:
    succeeded: set[str] = set()
    links = 0
    for draft in drafts:
        for target in draft.supersedes:
            if target.target_id in succeeded:
                raise ConflictError(
                    f"fact {target.target_id!r} is superseded by two facts of one write; "
                    "name one successor (the others may relate to it)"
                )
            succeeded.add(target.target_id)
        links += len(draft.supersedes) + len(draft.relates) + len(draft.conflicts)
    if links > MAX_WRITE_LINKS:
        raise ValidationError(
            f"one write names {links} stored facts (supersedes, relates, conflicts); "
            f"the limit is {MAX_WRITE_LINKS}: split it"
        )


class GraphStore(UserData, ImportData, FactEdits):
    """hmem's facts, entities, episodes and their edges in one Neo4j database: writes
    (with supersession) and closes by hand; (from ``FactReads``) reads of single facts,
    histories and lists; (from ``UserData``) export and erasure; (from ``ImportData``)
    imports."""

    def _check_draft(self, draft: FactDraft) -> npt.NDArray[np.float64] | None:
        """The draft's vector, checked (None without one); errors for what cannot be
        written."""
        if len(draft.text) > self.max_fact_chars:
            raise TextTooLongError(
                f"fact text has {len(draft.text)} characters; the limit is {self.max_fact_chars}"
            )
        if len(draft.entities) > self.max_entities_per_fact:
            raise ValidationError(f"a fact may name at most {self.max_entities_per_fact} entities")
        if draft.embedding is None:
            return None
        # Drafts built with model_copy skip their validators: check again, at this dimension.
        return vector_array(draft.embedding, self.embedding_dim)

    def write(
        self,
        user_id: str,
        drafts: Sequence[FactDraft],
        *,
        observed_at: datetime | None = None,
        episode: EpisodeDraft | None = None,
        corroborate: Sequence[str] = (),
        accepted_at: datetime | None = None,
    ) -> WriteResult:
        """Write facts with their entities and edges in one transaction.

        ``corroborate`` names stored facts a duplicate confirmed (merged): they gain a
        corroboration and, with ``episode``, provenance, in the same transaction.
        ``accepted_at`` (default: now) is when the caller accepted the write: if the user
        was erased since, nothing is written (``UserErasedError``).

        Exact duplicates of an open fact (same normalised text) are skipped. Targets of
        ``supersedes`` and ``relates`` must be this user's open facts, else nothing is
        written: ``NotFoundError`` (unknown, or another user's) or ``ConflictError``.
        """
        user_id = check_user_id(user_id)
        _check_bounds(drafts)
        observed = self._now(observed_at, "observed_at")
        if episode is not None:
            require_aware(episode.observed_at, "episode.observed_at")
        ingested = self._clock()
        rows: list[dict[str, Any]] = []
        seen_hashes: set[str] = set()
        skipped = 0
        for draft in drafts:
            vector = self._check_draft(draft)
            digest = fact_hash(draft.text)
            if digest in seen_hashes:
                skipped += 1
                continue
            seen_hashes.add(digest)
            known_from = draft.known_from or observed
            valid_from = draft.valid_from or known_from
            if draft.valid_to is not None and draft.valid_to < valid_from:
                raise TemporalOrderError("valid_to is before valid_from")
            rows.append(
                {
                    "draft": draft,
                    "vector": vector,
                    "id": draft.id or new_id(),
                    "hash": digest,
                    "known_from": known_from,
                    "valid_from": valid_from,
                }
            )

        merges = list(dict.fromkeys(corroborate))
        accepted = accepted_at or self._clock()
        target_ids = sorted(
            {t.target_id for r in rows for t in r["draft"].supersedes}
            | {t for r in rows for t in r["draft"].relates}
            | {t for r in rows for t in r["draft"].conflicts}
            | set(merges)
        )

        checked: dict[str, Any] = {}

        def work(tx: ManagedTransaction, bytes_only: bool) -> WriteResult:
            check = None
            if target_ids:  # the targets' windows decide the closes: read them first
                check = self._guard(
                    tx,
                    user_id,
                    accepted,
                    "write_check",
                    hashes=[r["hash"] for r in rows],
                    ids=[r["id"] for r in rows] + target_ids,
                )
            return self._write_tx(
                tx,
                user_id,
                accepted,
                check,
                target_ids,
                rows,
                skipped,
                observed,
                ingested,
                episode,
                merges,
                bytes_only,
                checked,
            )

        result, bookmarks = self._with_plugin(
            lambda plugin: self._committed(lambda tx: work(tx, plugin))
        )
        self._after_write(user_id, checked["vector_index"], checked["facts"] + len(result.added))
        return result.model_copy(update={"bookmarks": bookmarks})

    def _write_tx(
        self,
        tx: ManagedTransaction,
        user_id: str,
        accepted: datetime,
        check: dict[str, Any] | None,
        target_ids: list[str],
        rows: list[dict[str, Any]],
        skipped: int,
        observed: datetime,
        ingested: datetime,
        episode: EpisodeDraft | None,
        merges: list[str],
        bytes_only: bool,
        checked: dict[str, Any],
    ) -> WriteResult:
        """One round trip: ``write_apply`` makes every change, behind the erasure guard.
        A write with targets ran ``write_check`` first (``check``: the guard and what the
        write depends on); one without leaves the open-text and id checks to
        ``write_apply``. ``checked`` gets the user's vector-index state."""
        fresh = rows
        targets: dict[str, dict[str, Any]] = {}
        if check is not None:
            existing = set(check["open_hashes"])
            targets = {f["id"]: native(f) for f in check["found"]}
            fresh = []
            for row in rows:
                if row["hash"] in existing:
                    skipped += 1
                elif row["id"] in targets:
                    raise ConflictError(f"a fact with id {row['id']!r} already exists")
                else:
                    fresh.append(row)
            for tid in target_ids:
                if tid not in targets:
                    raise NotFoundError(f"no fact {tid!r} for this user")

        links: list[dict[str, Any]] = []
        closes: dict[str, dict[str, Any]] = {}
        late: list[dict[str, str]] = []  # inferred supersessions of a later fact
        for row in fresh:
            corrected = [
                targets[t.target_id]["valid_from"]
                for t in row["draft"].supersedes
                if t.reason is SupersedeReason.USER_EDIT
            ]
            if corrected and row["draft"].valid_from is None:
                # A correction says what was true all along: the new fact takes the
                # start of the one it corrects, unless its words gave one (docs/time.md).
                row["valid_from"] = min(corrected)
                if row["draft"].valid_to is not None and row["draft"].valid_to < row["valid_from"]:
                    raise TemporalOrderError("valid_to is before valid_from")
            for target in row["draft"].supersedes:
                old = targets[target.target_id]
                if old["known_to"] is not None:
                    raise ConflictError(
                        f"fact {target.target_id!r} is already closed; restore it first"
                    )
                changed = old.get("changed_at") or old["known_from"]
                if row["known_from"] < changed:
                    # Belief time only moves forward: a replacement learned before its
                    # target was would make the target's belief window empty and show it,
                    # as of the time between, as an older value it never was then.
                    restored = (
                        f", last changed (restored) at {changed.isoformat()}"
                        if changed != old["known_from"]
                        else ""
                    )
                    raise TemporalOrderError(
                        f"a supersession learned at {row['known_from'].isoformat()} cannot "
                        f"close a fact first known at {old['known_from'].isoformat()}"
                        f"{restored}: send a known_from (observed_at) at or after it"
                    )
                if target.reason is SupersedeReason.USER_EDIT:
                    valid_to = old["valid_from"]  # it was never true
                elif row["valid_from"] < old["valid_from"]:
                    # News about an earlier time cannot end a later fact: its end would
                    # fall before its start, and a contradiction would silently become
                    # "never true" (review D9). Saying so is a correction (user_edit);
                    # an inferred link keeps both open, marked as conflicting, as the
                    # session pipeline does with the model's.
                    if target.inferred:
                        late.append({"a": row["id"], "b": target.target_id})
                        continue
                    raise TemporalOrderError(
                        f"a successor true from {row['valid_from'].isoformat()} cannot end "
                        f"a fact true from {old['valid_from'].isoformat()}: its end would "
                        "come before its start. Send reason user_edit if it was never "
                        "true, or write the new fact with conflicts instead"
                    )
                else:
                    valid_to = row["valid_from"]
                known_to = row["known_from"]
                links.append(
                    {
                        "new_id": row["id"],
                        "old_id": target.target_id,
                        "reason": target.reason.value,
                        "at": row["known_from"],
                        "relation": target.relation,
                        "inferred": target.inferred,
                        "cue": target.cue,
                        "score": target.score,
                    }
                )
                prior = closes.get(target.target_id)
                if prior is None or known_to < prior["known_to"]:
                    closes[target.target_id] = {
                        "id": target.target_id,
                        "valid_to": valid_to,
                        "known_to": known_to,
                        "reason": target.reason.value,
                    }
        pairs = [
            {"a": r["id"], "b": t, "relation": kind}
            for r in fresh
            for kind, ids in (("relates", r["draft"].relates), ("conflicts", r["draft"].conflicts))
            for t in ids
        ] + [{**pair, "relation": "conflicts"} for pair in late]
        new = [r["id"] for r in fresh]
        episodes = []
        turns = {r["id"]: r["draft"].turn for r in fresh}
        if episode is not None:
            episodes.append(
                {
                    "id": episode.id or new_id(),
                    "session_id": episode.session_id,
                    "observed_at": episode.observed_at,
                    "text": episode.text,
                    "redactions": list(episode.redactions),
                    "links": [{"id": fid, "turn": turns.get(fid)} for fid in new + merges],
                }
            )
        # write_apply puts the ids it wrote first, and writes no event if it wrote nothing
        audit = [self._audit_row("write", sorted(closes) + merges, {"observed_at": observed})]
        times: dict[datetime, int] = {}  # each distinct instant sent once
        facts = [_fact_row(r, times, bytes_only=bytes_only) for r in fresh]
        done = self._run(
            tx,
            "write_apply",
            native=bytes_only,
            user_id=user_id,
            user_key=lexical_user_key(user_id),
            user_ref=self._user_ref(user_id),
            accepted=accepted,
            count_cap=self.vector_index_min_facts + 1,
            now=ingested,
            times=list(times),
            facts=facts,
            links=links,
            closes=list(closes.values()),
            pairs=pairs,
            merges=merges,
            episodes=episodes,
            audit=audit,
        )
        if not done:  # the guard refused the write: it says why
            self._guard(tx, user_id, accepted)
            raise ConflictError("the write was refused by the erasure guard; retry")
        [row] = done
        if row["clashes"]:
            raise ConflictError(f"a fact with id {row['clashes'][0]!r} already exists")
        checked.update(vector_index=row["vector_index"], facts=row["facts"])
        written = set(row["created"])
        added = [fid for fid in new if fid in written]
        skipped += len(new) - len(added)
        if row["closed"] != len(closes):
            raise ConflictError("a superseded fact was closed concurrently; retry")
        return WriteResult(
            added=added,
            merged=merges,
            superseded=sorted(closes),
            related=[(p["a"], p["b"]) for p in pairs],
            skipped=skipped,
        )
