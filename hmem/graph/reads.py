"""Reads of the fact graph one user at a time: single facts (``get``, as believed at a
time), their supersession chains (``history``), lists in either clock (``list_facts``),
and the neighbours a write or an inference compares against. Mixed into ``GraphStore``
(``hmem/graph/store.py``), which holds the writes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from hmem.errors import NotFoundError, ValidationError
from hmem.graph._base import StoreBase
from hmem.graph._driver import FULLTEXT_LAG
from hmem.graph._records import check_user_id, native, to_fact, unpacked
from hmem.models import (
    Fact,
    FactHistory,
    HistoryStep,
    SupersessionLink,
    check_vector,
    require_aware,
)

__all__ = ["FactReads"]


class FactReads(StoreBase):
    """Per-user reads of facts, their histories and their neighbours."""

    def neighbours(
        self, user_id: str, vector: Sequence[float] | None, k: int = 10
    ) -> list[dict[str, Any]]:
        """This user's open facts nearest to ``vector`` (exact cosine), each with
        ``id, text, valid_from, score, embedding``; the most recent ones without a vector."""
        user_id = check_user_id(user_id)
        if vector is None:
            rows = self._read("fact_recent_open", user_id=user_id, k=k)
        else:
            query = check_vector(vector, self.embedding_dim, "query vector")
            rows = self._with_plugin(  # hmem's plugin has hmem.vector.topk too
                lambda plugin: self._read_values(
                    "fact_neighbours", native=plugin, user_id=user_id, vector=query, k=k
                )
            )
            for row in rows:
                if row["packed"] is not None:
                    row["embedding"] = unpacked(row["packed"])
                del row["packed"]
        return [native(r) for r in rows]

    def infer_neighbours(
        self, user_id: str, *, names: list[str], lucene: str | None, k: int = 10
    ) -> list[dict[str, Any]]:
        """This user's open facts naming the entities ``names`` (canonical) or matching
        ``lucene`` (a fulltext query that starts with ``lucene_prefix``), best first."""
        user_id = check_user_id(user_id)
        if lucene is not None:  # this process's last writes must be in the index
            FULLTEXT_LAG.settle(self._driver, self._database)
        rows = self._read("infer_neighbours", user_id=user_id, names=names, lucene=lucene, k=k)
        return [native(r) for r in rows]

    def previous_open(self, user_id: str, before: datetime, k: int = 2) -> list[dict[str, Any]]:
        """This user's open facts learned last before ``before``, newest first (``id,
        text, known_from, score``): what a correction just after them may put right."""
        user_id = check_user_id(user_id)
        require_aware(before, "before")
        rows = self._read("fact_previous_open", user_id=user_id, before=before, k=k)
        return [native(r) for r in rows]

    def episode_facts(self, user_id: str, episode_id: str) -> list[str] | None:
        """The facts written from an episode, or None if the episode was never written
        (a job's write is one transaction: the episode exists iff its facts do)."""
        user_id = check_user_id(user_id)
        rows = self._read("episode_get", user_id=user_id, episode_id=episode_id)
        if not rows:
            return None
        return sorted(rows[0]["fact_ids"])

    def get(self, user_id: str, fact_id: str, *, as_of: datetime | None = None) -> Fact:
        """The fact as stored, or with ``as_of`` as it was believed then (a close learned
        later is not shown; ``NotFoundError`` if it was not known yet)."""
        user_id = check_user_id(user_id)
        require_aware(as_of, "as_of")
        rows = self._read("fact_get", user_id=user_id, fact_id=fact_id, believed_at=as_of)
        if not rows:
            raise NotFoundError(f"no fact {fact_id!r} for this user")
        return to_fact(rows[0]["fact"], rows[0]["entities"])

    def history(self, user_id: str, fact_id: str, *, as_of: datetime | None = None) -> FactHistory:
        """The fact and its whole supersession chain: what it replaced (oldest first)
        and what replaced it (newest last), each with the link's reason and time.
        ``as_of``: the chain as believed then (links and facts learned later left out,
        closes learned later hidden)."""
        user_id = check_user_id(user_id)
        require_aware(as_of, "as_of")
        rows = self._read("fact_history", user_id=user_id, fact_id=fact_id, believed_at=as_of)
        if not rows:
            raise NotFoundError(f"no fact {fact_id!r} for this user")
        facts = {r["fact"]["id"]: to_fact(r["fact"], r["entities"]) for r in rows}
        edges = [
            SupersessionLink(new_id=r["fact"]["id"], **native(link))
            for r in rows
            for link in r["links"]
            if link is not None
        ]
        older: defaultdict[str, list[SupersessionLink]] = defaultdict(list)
        newer: defaultdict[str, list[SupersessionLink]] = defaultdict(list)
        for edge in edges:  # one pass, not a scan of every edge per edge
            older[edge.new_id].append(edge)
            newer[edge.old_id].append(edge)

        def walk(
            start: str, step: dict[str, list[SupersessionLink]], forward: bool
        ) -> list[HistoryStep]:
            out: list[HistoryStep] = []
            seen = {start}
            frontier = [start]
            while frontier:
                current = frontier.pop(0)
                for link in step.get(current, []):
                    other = link.old_id if not forward else link.new_id
                    if other in seen:
                        continue
                    seen.add(other)
                    out.append(HistoryStep(fact=facts[other], link=link))
                    frontier.append(other)
            return out

        predecessors = walk(fact_id, older, forward=False)
        successors = walk(fact_id, newer, forward=True)
        predecessors.sort(key=lambda s: (s.fact.valid_from, s.fact.known_from))
        successors.sort(key=lambda s: (s.fact.valid_from, s.fact.known_from))
        return FactHistory(fact=facts[fact_id], predecessors=predecessors, successors=successors)

    def list_facts(
        self,
        user_id: str,
        *,
        as_of: datetime | None = None,
        as_of_event: datetime | None = None,
        include_closed: bool = False,
        now: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Fact]:
        """Current facts by default. ``as_of`` (belief time) and/or ``as_of_event``
        (world time) select the past instead; ``include_closed`` lists everything."""
        user_id = check_user_id(user_id)
        require_aware(as_of, "as_of")
        require_aware(as_of_event, "as_of_event")
        if not 1 <= limit <= 10_000 or offset < 0:
            raise ValidationError("limit must be 1..10000 and offset >= 0")
        if include_closed and (as_of or as_of_event):
            raise ValidationError("include_closed lists everything; drop as_of/as_of_event")
        mode = "all" if include_closed else "asof" if (as_of or as_of_event) else "current"
        at = self._now(now)
        rows = self._read(
            "fact_list",
            user_id=user_id,
            mode=mode,
            now=at,
            as_of=as_of,
            as_of_event=as_of_event,
            # each fact as believed at the view's belief time: as_of, or now
            believed_at=None if mode == "all" else as_of or at,
            skip=offset,
            limit=limit,
        )
        return [to_fact(r["fact"], r["entities"]) for r in rows]
