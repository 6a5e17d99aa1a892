"""The extractor: one model call turns a session into facts and their relations.

This module holds the whole task: the prompt, the pydantic response schema the
model must fill, and the function that asks. The model only *names* relations to the
neighbours it was shown; what happens to them is decided by code
(``hmem.extract.relations``), and no relation can delete anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hmem.extract.clients import Usage
from hmem.models import Category

__all__ = [
    "EXTRACTOR_SYSTEM",
    "ExtractedEntity",
    "ExtractedFact",
    "ExtractedRelation",
    "Extraction",
    "Extractor",
    "JsonChat",
    "Neighbour",
    "Relation",
    "build_prompt",
]

MAX_FACT_WORDS = 80


class Relation(StrEnum):
    """What a new fact is to a stored one: the model's one judgement."""

    CONTRADICTS = "contradicts"  # the stored fact is no longer true
    REFINES = "refines"  # the new fact is a more precise version of the stored one
    DUPLICATES = "duplicates"  # says the same thing
    RELATES = "relates"  # related, both stay true


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExtractedEntity(_Strict):
    name: Annotated[str, Field(min_length=1, max_length=200)]
    type: Annotated[str, Field(max_length=40)] = "thing"


class ExtractedRelation(_Strict):
    target_id: Annotated[str, Field(min_length=1, max_length=128)]
    relation: Relation


class ExtractedFact(_Strict):
    text: Annotated[str, Field(min_length=3, max_length=800)]
    category: Category = Category.SEMANTIC
    importance: Annotated[int, Field(ge=1, le=10)] = 5
    event_date: str | None = Field(
        None, description="when it became true: ISO date (YYYY, YYYY-MM or YYYY-MM-DD)"
    )
    entities: list[ExtractedEntity] = Field(default_factory=list, max_length=32)
    relations: list[ExtractedRelation] = Field(default_factory=list, max_length=10)

    @field_validator("text")
    @classmethod
    def _short_enough(cls, text: str) -> str:
        words = len(text.split())
        if words > MAX_FACT_WORDS:
            raise ValueError(f"a fact has at most {MAX_FACT_WORDS} words (got {words})")
        return text.strip()


class Extraction(_Strict):
    facts: list[ExtractedFact] = Field(default_factory=list, max_length=50)


@dataclass(frozen=True)
class Neighbour:
    """A stored, open fact of this user, shown to the extractor with its id."""

    id: str
    text: str
    valid_from: datetime
    score: float


EXTRACTOR_SYSTEM = """\
You are the memory extractor of a personal assistant. From the USER's messages, write \
the durable facts worth remembering about the user and the people, places and things \
in their life.

Rules for each fact:
- One self-contained statement of 5 to 80 words. Use real names, never pronouns \
("Maya moved to Paris", not "she moved"). The user is called by their name if known, \
else "The user".
- Absolute dates only: turn "last month", "next Tuesday", "yesterday" into dates using \
TODAY below. Put the date the fact became true in event_date (YYYY, YYYY-MM or YYYY-MM-DD).
- category: semantic (a lasting fact or preference), episodic (an event or a plan), \
procedural (how the user wants the assistant to behave).
- importance: 1 (trivia) to 10 (health, safety, identity).
- entities: the named people, places, organisations, pets and things in the fact.
- Skip small talk, questions, and anything the assistant said.
- Never store passwords, card or bank numbers, or government ids.

Relations to the STORED FACTS listed below (use their ids exactly; only those ids):
- contradicts: the stored fact is no longer true because of the new one \
(moved city, changed job, ended a plan).
- refines: the new fact is a more precise version of the stored one \
(vegetarian -> pescatarian).
- duplicates: the new fact says what a stored fact already says.
- relates: related, and both stay true.
Leave relations empty when none applies. Most facts relate to nothing.

Answer with JSON only: {"facts": [{"text", "category", "importance", "event_date", \
"entities": [{"name", "type"}], "relations": [{"target_id", "relation"}]}]}. \
If there is nothing worth remembering, answer {"facts": []}."""


def build_prompt(source_text: str, neighbours: Sequence[Neighbour], observed_at: datetime) -> str:
    """The user message of the extractor call."""
    lines = [f"TODAY: {observed_at:%Y-%m-%d} ({observed_at:%A})", "", "STORED FACTS:"]
    if neighbours:
        lines.extend(f"- [{n.id}] {n.text} (since {n.valid_from:%Y-%m-%d})" for n in neighbours)
    else:
        lines.append("(none)")
    lines += ["", "USER'S MESSAGES:", source_text]
    return "\n".join(lines)


class JsonChat(Protocol):
    """What the extractor needs from a chat client (``ChatClient`` is one)."""

    def complete_json(
        self, system: str, user: str, schema: type[Extraction], *, name: str
    ) -> tuple[Extraction, Usage]: ...


class Extractor:
    """One call per session: temperature 0, strict JSON, schema-validated (the client
    retries malformed output once, then raises ``ModelOutputError``)."""

    def __init__(self, chat: JsonChat) -> None:
        self._chat = chat

    def extract(
        self, source_text: str, neighbours: Sequence[Neighbour], observed_at: datetime
    ) -> tuple[Extraction, Usage]:
        prompt = build_prompt(source_text, neighbours, observed_at)
        return self._chat.complete_json(EXTRACTOR_SYSTEM, prompt, Extraction, name="extraction")
