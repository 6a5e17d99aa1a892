"""The relation table: the model names a relation, code picks the operation.

Readable in one glance, identical on every run, and exhaustive (a relation without an
entry fails at import). DELETE is not in this vocabulary: supersession closes a fact
and keeps it; real erasure is a separate operation with a separate trigger.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

from hmem.extract.extractor import Relation
from hmem.models import SupersedeReason

__all__ = ["POLICY", "Operation", "decide", "policy_table"]


class Operation(StrEnum):
    SUPERSEDE = "supersede"  # new -[:SUPERSEDES]-> old; old closed in both clocks
    MERGE = "merge"  # no new node; the old fact is corroborated and gains provenance
    RELATE = "relate"  # new -[:RELATES]-> old; both stay true


POLICY: MappingProxyType[Relation, tuple[Operation, SupersedeReason | None]] = MappingProxyType(
    {
        Relation.CONTRADICTS: (Operation.SUPERSEDE, SupersedeReason.CONTRADICTION),
        Relation.REFINES: (Operation.SUPERSEDE, SupersedeReason.REFINEMENT),
        Relation.DUPLICATES: (Operation.MERGE, None),
        Relation.RELATES: (Operation.RELATE, None),
    }
)

_missing = set(Relation) - set(POLICY)
if _missing:  # pragma: no cover - a new relation without a policy entry must not load
    raise RuntimeError(f"relations without an operation: {sorted(_missing)}")


def decide(relation: Relation) -> tuple[Operation, SupersedeReason | None]:
    return POLICY[relation]


def policy_table() -> str:
    """The table as text, for `hmem relations` and the docs."""
    rows = [("relation (model)", "operation (code)", "reason kept on the edge")]
    rows += [
        (r.value, op.value, reason.value if reason else "-") for r, (op, reason) in POLICY.items()
    ]
    width = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(width[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in width))
    return "\n".join(lines)
