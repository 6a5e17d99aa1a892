"""Edits by hand of stored facts: a corroboration, a close (retraction, end, correction)
and a restore. Each is one transaction scoped by ``user_id`` and audited; nothing here
deletes (docs/time.md says what each does to the two clocks)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from neo4j import ManagedTransaction

from hmem.errors import ConflictError, NotFoundError, TemporalOrderError, ValidationError
from hmem.graph._records import check_user_id, native
from hmem.graph.reads import FactReads
from hmem.models import Fact, SupersedeReason, require_aware

__all__ = ["FactEdits"]


class FactEdits(FactReads):
    def corroborate(self, user_id: str, fact_ids: Sequence[str]) -> list[str]:
        """A duplicate arrived: the stored facts gain a corroboration, nothing is added."""
        user_id = check_user_id(user_id)
        ids = list(dict.fromkeys(fact_ids))

        def work(tx: ManagedTransaction) -> list[str]:
            found = {r["id"] for r in self._run(tx, "fact_targets", user_id=user_id, ids=ids)}
            missing = [i for i in ids if i not in found]
            if missing:
                raise NotFoundError(f"no fact {missing[0]!r} for this user")
            self._run(tx, "fact_corroborate", user_id=user_id, ids=ids)
            return ids

        merged: list[str] = self._write(user_id, work)
        return merged

    def close(
        self,
        user_id: str,
        fact_id: str,
        *,
        at: datetime | None = None,
        observed_at: datetime | None = None,
        reason: SupersedeReason = SupersedeReason.RETRACTION,
    ) -> Fact:
        """Close a fact with no successor, learned at ``observed_at`` (belief time; default
        now). With ``at`` (world time) it stopped being true then: its window ends at
        ``at`` and it stays believed with that end (stored with reason ``ended``). Without
        ``at``, a ``retraction`` withdraws it from belief (its window kept, as believed
        before); ``user_edit`` means it was never true: withdrawn, its window empty
        (docs/time.md)."""
        user_id = check_user_id(user_id)
        observed = self._now(observed_at, "observed_at")
        ended = require_aware(at, "at")
        if reason not in (SupersedeReason.RETRACTION, SupersedeReason.USER_EDIT):
            raise ValidationError("close() takes reason 'retraction' or 'user_edit'")
        if reason is SupersedeReason.RETRACTION and ended is not None:
            reason = SupersedeReason.ENDED

        def work(tx: ManagedTransaction) -> None:
            fact = self._get_tx(tx, user_id, fact_id)
            if fact.known_to is not None:
                raise ConflictError(f"fact {fact_id!r} is already closed")
            valid_to: datetime | None
            if reason is SupersedeReason.USER_EDIT:
                valid_to = fact.valid_from
            elif ended is not None:
                valid_to = ended
            else:  # withdrawn: the window stays as it was believed
                valid_to = fact.valid_to
            if valid_to is not None and valid_to < fact.valid_from:
                raise TemporalOrderError(
                    f"cannot end fact {fact_id!r} at {valid_to.isoformat()}: it started "
                    f"{fact.valid_from.isoformat()}"
                )
            if observed < fact.known_from:
                raise TemporalOrderError(
                    f"observed_at {observed.isoformat()} is before the fact was learned "
                    f"({fact.known_from.isoformat()})"
                )
            row = {
                "id": fact_id,
                "valid_to": valid_to,
                "known_to": observed,
                "reason": reason.value,
            }
            [done] = self._run(tx, "fact_close_many", user_id=user_id, rows=[row])
            if done["closed"] != 1:
                raise TemporalOrderError(
                    f"observed_at {observed.isoformat()} is before fact {fact_id!r} was "
                    "last changed (restored)"
                )
            self._audit(tx, user_id, "close", [fact_id], {"reason": reason.value})

        self._write(user_id, work)
        return self.get(user_id, fact_id)

    def restore(self, user_id: str, fact_id: str, *, observed_at: datetime | None = None) -> Fact:
        """Undo a supersession or retraction: the fact is open again from belief time
        ``observed_at`` (default now) on; a view as of an earlier belief time still shows
        it closed (docs/time.md). The successor, if any, stays as it is. Nothing is
        deleted: the edges that closed it are kept, marked undone from ``observed_at``
        (``SupersessionLink.undone_at``), so ``history(as_of=)`` before the restore still
        shows them; the audit trail names them too."""
        user_id = check_user_id(user_id)
        observed = self._now(observed_at, "observed_at")

        def work(tx: ManagedTransaction) -> None:
            fact = self._get_tx(tx, user_id, fact_id)
            if fact.known_to is None:
                raise ConflictError(f"fact {fact_id!r} is open; there is nothing to restore")
            undone = self._run(tx, "fact_closing_links", user_id=user_id, fact_id=fact_id)
            if not self._run(tx, "fact_restore", user_id=user_id, fact_id=fact_id, at=observed):
                raise TemporalOrderError(
                    f"observed_at {observed.isoformat()} is before fact {fact_id!r} was closed"
                )
            self._audit(
                tx,
                user_id,
                "restore",
                [fact_id],
                {"close_reason": fact.close_reason, "undone": native(undone)},
            )

        self._write(user_id, work)
        return self.get(user_id, fact_id)
