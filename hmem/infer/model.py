"""Changes from the words with a model configured: ONE small structured call per write
(never one per neighbour), asked only when the write has neighbours. The model names a
relation per stored fact; the code maps it to the operation (the seed-002 table) and
keeps only the ids it showed. Nothing is ever deleted."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hmem.extract.clients import Usage
from hmem.infer.changes import Decision
from hmem.models import SupersedeReason

__all__ = ["JUDGE_SYSTEM", "Judgement", "Judgements", "judge"]

JUDGE_SYSTEM = """\
You keep a personal assistant's memory true. A NEW statement arrives; for each STORED \
fact listed (by id), say what the new statement does to it:
- contradicts: the stored fact is no longer true (moved city, changed job, a new value \
of the same thing).
- refines: the new statement is a more precise version of the stored fact.
- corrects: the user says the stored fact was a mistake ("actually", "correction").
- ends: the stored situation ended with no new value (passed away, broke up, quit).
- duplicates: the new statement says what the stored fact says.
- unrelated: anything else, including facts about other people and additions \
("too", "also"). Most stored facts are unrelated.
Answer with JSON only: {"judgements": [{"target_id": "...", "relation": "..."}]}, one \
per stored fact you judge; leave out the unrelated ones."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Judgement(_Strict):
    target_id: Annotated[str, Field(min_length=1, max_length=128)]
    relation: Literal["contradicts", "refines", "corrects", "ends", "duplicates", "unrelated"]


class Judgements(_Strict):
    judgements: list[Judgement] = Field(default_factory=list, max_length=30)


_POLICY: dict[str, tuple[str, SupersedeReason | None]] = {
    "contradicts": ("supersede", SupersedeReason.CONTRADICTION),
    "refines": ("supersede", SupersedeReason.REFINEMENT),
    "corrects": ("supersede", SupersedeReason.USER_EDIT),
    "ends": ("supersede", SupersedeReason.ENDED),
    "duplicates": ("noop", None),
}


def judge(
    chat: Any, text: str, neighbours: Sequence[dict[str, Any]], observed_at: datetime
) -> tuple[dict[str, Decision], Usage]:
    """One call: the decision per neighbour id the model judged (unrelated and unknown
    ids left out)."""
    lines = [f"TODAY: {observed_at:%Y-%m-%d}", "", f"NEW: {text}", "", "STORED:"]
    lines += [f"- [{row['id']}] {row['text']}" for row in neighbours]
    found, usage = chat.complete_json(
        JUDGE_SYSTEM, "\n".join(lines), Judgements, name="change_judgement"
    )
    shown = {row["id"] for row in neighbours}
    out: dict[str, Decision] = {}
    for item in found.judgements:
        if item.target_id in shown and item.relation in _POLICY:
            op, reason = _POLICY[item.relation]
            out[item.target_id] = Decision(op, reason, f"model: {item.relation}")
    return out, usage
