"""The running profile: at most 120 words about the user, rewritten after a session.

Optional (``Config.profile_enabled``), because it is a second model call per session
that added facts; hmem's default write path stays at one call. The profile is always
rewritten from the old profile plus the session's new facts, never from raw chat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hmem.extract.clients import Usage

__all__ = ["MAX_PROFILE_WORDS", "PROFILE_SYSTEM", "Profile", "ProfileChat", "rewrite_profile"]

MAX_PROFILE_WORDS = 120

PROFILE_SYSTEM = f"""\
You keep a short profile of a user for their personal assistant: who they are, where \
they live, work, family, pets, health constraints, lasting preferences. At most \
{MAX_PROFILE_WORDS} words, third person, real names, absolute dates, no secrets. Given \
the CURRENT PROFILE and NEW FACTS (newer facts win), answer with JSON only: {{"text": "..."}}."""


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, Field(max_length=1200)]

    @field_validator("text")
    @classmethod
    def _short(cls, text: str) -> str:
        words = len(text.split())
        if words > MAX_PROFILE_WORDS:
            raise ValueError(f"the profile has at most {MAX_PROFILE_WORDS} words (got {words})")
        return text.strip()


class ProfileChat(Protocol):
    def complete_json(
        self, system: str, user: str, schema: type[Profile], *, name: str
    ) -> tuple[Profile, Usage]: ...


def rewrite_profile(
    chat: ProfileChat, current: str | None, new_facts: Sequence[str]
) -> tuple[Profile, Usage]:
    prompt = (
        "CURRENT PROFILE:\n"
        + (current or "(none)")
        + "\n\nNEW FACTS:\n"
        + "\n".join(f"- {text}" for text in new_facts)
    )
    return chat.complete_json(PROFILE_SYSTEM, prompt, Profile, name="profile")
