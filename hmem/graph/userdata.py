"""What a user owns, as a whole: counts, the audit trail, the profile, export, and
real erasure (right to be forgotten)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from hmem.errors import ConflictError
from hmem.graph import catalog
from hmem.graph._base import StoreBase, new_id
from hmem.graph._driver import translate_errors
from hmem.graph._records import check_user_id, native, to_fact
from hmem.models import (
    Entity,
    Episode,
    ProfileRecord,
    SupersedeReason,
    SupersessionLink,
    UserExport,
)

__all__ = ["UserData"]

_ERASE_STATEMENTS = (
    "user_erase_facts",
    "user_erase_entities",
    "user_erase_episodes",
    "user_erase_audit",
    "user_erase_profile",
    "user_erase_root",
)


class UserData(StoreBase):
    """Per-user operations over everything the user has stored."""

    def counts(self, user_id: str) -> dict[str, int]:
        """How many nodes of each kind this user has (erasure proves itself with it)."""
        user_id = check_user_id(user_id)
        rows = self._read("user_counts", user_id=user_id)
        return {k: int(v) for k, v in rows[0].items()}

    def profile(self, user_id: str) -> tuple[str, datetime] | None:
        """The user's running profile and when it was last rewritten, if any."""
        user_id = check_user_id(user_id)
        rows = self._read("profile_get", user_id=user_id)
        if not rows:
            return None
        return str(rows[0]["text"]), native(rows[0]["updated_at"])

    def set_profile(self, user_id: str, text: str, *, accepted_at: datetime | None = None) -> None:
        user_id = check_user_id(user_id)

        def work(tx: ManagedTransaction) -> None:
            self._run(tx, "profile_set", user_id=user_id, text=text, now=self._clock())

        self._write(user_id, work, accepted_at=accepted_at)

    def audit(self, user_id: str, limit: int = 100) -> list[dict[str, Any]]:
        user_id = check_user_id(user_id)
        rows = self._read("audit_list", user_id=user_id, limit=limit)
        return [{**native(r), "detail": json.loads(r["detail"])} for r in rows]

    def entities(self, user_id: str) -> list[Entity]:
        """This user's entities (names, aliases, types), by canonical name."""
        user_id = check_user_id(user_id)
        return [
            Entity.model_validate(native(r["entity"]))
            for r in self._read("entity_list", user_id=user_id)
        ]

    def entity_links(self, user_id: str) -> dict[str, int]:
        """``{links, entities, facts}``: MENTIONS edges, the entities they reach, and the
        facts that name at least one."""
        user_id = check_user_id(user_id)
        [row] = self._read("user_entity_links", user_id=user_id)
        return {k: int(v) for k, v in row.items()}

    def export(self, user_id: str) -> UserExport:
        """Everything stored for this user as plain data (no vectors), each fact with its
        belief history (``belief_history``) and every SUPERSEDES edge, an undone one too:
        ``Memory.import_export`` brings it back as it was."""
        user_id = check_user_id(user_id)
        profile = self.profile(user_id)
        facts = [
            to_fact(r["fact"], r["entities"])
            for r in self._read(
                "fact_list",
                user_id=user_id,
                mode="all",
                now=self._clock(),
                as_of=None,
                as_of_event=None,
                believed_at=None,
                skip=0,
                limit=1_000_000,
            )
        ]
        return UserExport(
            user_id=user_id,
            exported_at=self._clock(),
            facts=facts,
            entities=self.entities(user_id),
            episodes=[
                Episode.model_validate(native(r["episode"]))
                for r in self._read("episode_list", user_id=user_id)
            ],
            supersessions=[
                SupersessionLink.model_validate(native(r))
                for r in self._read("supersession_list", user_id=user_id)
            ],
            relations=[(r["a"], r["b"]) for r in self._read("relates_list", user_id=user_id)],
            profile=None
            if profile is None
            else ProfileRecord(text=profile[0], updated_at=profile[1]),
            belief_history={
                r["id"]: [
                    (at, to, SupersedeReason(why) if why else None)
                    for at, to, why in zip(r["at"], r["valid_to"], r["why"], strict=True)
                ]
                for r in map(native, self._read("fact_belief_list", user_id=user_id))
            },
        )

    def erase_fact(
        self,
        user_id: str,
        fact_id: str,
        *,
        purge: Callable[[str, list[str]], int] | None = None,
    ) -> dict[str, int]:
        """Really delete one fact, its vector, the episodes only it came from (an episode a
        surviving fact needs stays, the fact's text cut out of it) and entities no other
        fact mentions. The audit keeps the counts, never the text, and no longer the id:
        every event that named the fact names its keyed ref instead (``fact_ref``; a
        caller-chosen id can carry text). ``purge(text, episode_ids)`` takes the text from
        elsewhere (the job queue) and returns how many copies it dropped (``jobs`` in the
        counts). It runs inside the erasing transaction, before the commit: if it fails,
        nothing is erased and the call can be made again (after a commit the fact, and so
        its text, could no longer be found); run twice by a retried transaction, the second
        run finds nothing left to drop."""
        user_id = check_user_id(user_id)

        def work(tx: ManagedTransaction) -> dict[str, int]:
            self._get_tx(tx, user_id, fact_id)
            row = self._run(tx, "fact_erase", user_id=user_id, fact_id=fact_id)[0]
            counts = {"facts": 1, "episodes": row["episodes"], "entities": row["entities"]}
            ref = self.fact_ref(user_id, fact_id)
            self._run(
                tx,
                "audit_forget_fact",
                user_id=user_id,
                fact_id=fact_id,
                ref=ref,
                quoted=json.dumps(fact_id),
                quoted_ref=json.dumps(ref),
            )
            self._audit(tx, user_id, "erase_fact", [ref], counts)
            if purge is not None:
                counts["jobs"] = purge(row["text"], list(row["episode_ids"]))
            return counts

        erased: dict[str, int] = self._write(user_id, work)
        self._settle_fulltext()
        return erased

    def erasure_receipt(self, user_id: str) -> dict[str, Any] | None:
        """The receipt of ``user_id``'s erasure (``at``, ``done_at``, ``state``,
        ``counts``), or None. Receipts name users by a ref keyed with the server secret
        (``hmem.graph._base.user_ref``): the operator, who holds the secret, recomputes
        it from the id a data subject gives; without the secret the receipts confirm no
        guess."""
        user_id = check_user_id(user_id)
        rows = self._read_values("admin_erasure_get", user_ref=self._user_ref(user_id))
        if not rows:
            return None
        receipt = native(rows[0]["receipt"])
        receipt["counts"] = json.loads(receipt["counts"]) if receipt.get("counts") else None
        return dict(receipt)

    def erase_user(self, user_id: str) -> dict[str, int]:
        """Delete every node and edge of this user, then prove that nothing remains.

        Erasure wins every race with a write. Its first step commits a marker (an
        ``Erasure`` node keyed by a hash of the user id, never the id or any content)
        while holding the user's lock; every write transaction takes the same lock and
        reads the marker first (``StoreBase._write``). So a write either committed
        before the marker (and is deleted below) or sees it and stores nothing: one
        accepted before the erasure is refused for good, one accepted later waits
        until the erasure is done and then starts the user afresh. Finally the marker
        becomes the receipt: when, and how much went. Erasing an unknown user returns
        zero counts (its marker still stops a first session in flight). If this fails
        half-way, the user stays locked against writes until it is run again.
        """
        user_id = check_user_id(user_id)
        marker = new_id()

        def begin(tx: ManagedTransaction) -> dict[str, int]:
            [before] = self._run(tx, "user_counts", user_id=user_id)
            self._run(
                tx,
                "user_erase_begin",
                user_id=user_id,
                user_ref=self._user_ref(user_id),
                id=marker,
                at=self._clock(),
            )
            return {k: int(v) for k, v in before.items()}

        with translate_errors(self._driver), self._session() as session:
            before: dict[str, int] = session.execute_write(begin)
            for name in _ERASE_STATEMENTS:
                stmt = catalog.statement(name)
                session.run(stmt.text, stmt.bind({"user_id": user_id})).consume()
        self._settle_fulltext()
        after = self.counts(user_id)
        if any(after.values()):
            raise ConflictError(f"erasure incomplete, still stored: {after}; run it again")
        receipt = catalog.statement("admin_erasure_receipt")
        params = {
            "id": marker,
            "counts": json.dumps(before, sort_keys=True),
            "done_at": self._clock(),
        }
        with translate_errors(self._driver):
            self._driver.execute_query(receipt.text, receipt.bind(params), database_=self._database)
        return before
