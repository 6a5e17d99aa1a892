"""A chat session as ``add`` takes it (``Message``, ``Role``, ``MessagesIn``) and what one
session did (``AddResult``): the public types of the session write path, apart from the
fact types in ``hmem/models.py`` (which re-exports them). Pure: imports nothing of hmem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["AddResult", "Message", "MessagesIn", "Role"]

Role = Literal["user", "assistant", "system", "tool"]


class Message(BaseModel):
    """One chat turn as the caller sent it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: str
    name: str | None = None


#: What ``add`` takes: one user turn as a string, or the turns.
MessagesIn = str | Sequence[Message | dict[str, Any]]


@dataclass
class AddResult:
    """What one session did: ids and counts, the model cost, and the job it ran as."""

    job_id: str
    status: str = "done"
    added: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    superseded_reasons: dict[str, str] = field(default_factory=dict)
    merged: list[str] = field(default_factory=list)
    related: list[tuple[str, str]] = field(default_factory=list)
    skipped: int = 0
    refused: list[str] = field(default_factory=list)
    rejected_targets: list[str] = field(default_factory=list)
    chat_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    embedding_calls: int = 0
    model_seconds: float = 0.0
    embed_seconds: float = 0.0
    total_seconds: float = 0.0
    replayed: bool = False
    profile_updated: bool | None = None
    bookmarks: list[str] = field(default_factory=list)  # of the write (WriteResult)

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["related"] = [list(pair) for pair in self.related]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AddResult:
        values = dict(data)
        values["related"] = [tuple(pair) for pair in values.get("related", [])]
        return cls(**values)
