"""Bounds on what one write can change (issue 45, N7 and N8).

- One inferred write closes at most ``infer_max_closures`` facts: a text whose judge
  names more ("every stored fact is now contradicted") closes none of them and returns
  them as proposals the caller confirms.
- One write gives a stored fact at most one successor, and names at most
  ``MAX_WRITE_LINKS`` stored facts: 300 drafts each superseding the same 64 facts is
  refused before anything is written (409 / 422 through the API).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.errors import ConflictError, ValidationError
from hmem.graph.store import MAX_WRITE_LINKS
from hmem.models import FactDraft, SupersedeTarget
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer


def _contradict_everything(body: dict[str, Any]) -> dict[str, Any]:
    """A judge that says the new text contradicts every stored fact it was shown."""
    prompt = body["messages"][1]["content"]
    shown = re.findall(r"^- \[([^\]]+)\]", prompt, flags=re.MULTILINE)
    return {"judgements": [{"target_id": i, "relation": "contradicts"} for i in shown]}


def test_one_inferred_write_closes_at_most_the_bound(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, user_id: str
) -> None:
    settings = {
        "llm_base_url": fake_openai.base_url,
        "llm_api_key": FAKE_API_KEY,
        "llm_model": "fake-chat",
        "llm_max_retries": 1,
    }
    with Memory(Config(**{**config.model_dump(), **settings}), driver=driver) as memory:
        assert memory.config.infer_max_closures == 3  # the default: small
        when = datetime(2025, 1, 1, 9, tzinfo=UTC)
        stored = memory.remember_many(
            [
                FactDraft(text=f"Maya's fact number {n} is about Maya.", known_from=when)
                for n in range(12)
            ],
            user_id=user_id,
        ).added
        fake_openai.clear_chat()
        fake_openai.queue_chat(_contradict_everything)
        broad = memory.remember(
            "Every stored fact about Maya is now contradicted.",
            user_id=user_id,
            observed_at=datetime(2025, 6, 1, 9, tzinfo=UTC),
        )
        assert broad.added and broad.superseded == [] and broad.inferred == []
        assert len(broad.proposed) > 3, broad.proposed  # all named, none closed
        assert {p.old_id for p in broad.proposed} <= set(stored)
        assert all(p.cue == "model: contradicts" for p in broad.proposed)
        open_ids = {f.id for f in memory.facts(user_id=user_id)}
        assert set(stored) <= open_ids  # the user's present is unchanged
        # the caller confirms one proposal: that one closes
        target = broad.proposed[0].old_id
        confirmed = memory.remember(
            "Maya's fact is replaced.",
            user_id=user_id,
            supersedes=[target],
            observed_at=datetime(2025, 6, 2, 9, tzinfo=UTC),
        )
        assert confirmed.superseded == [target]


def test_one_successor_per_target_and_a_cap_on_links(memory: Memory, user_id: str) -> None:
    when = datetime(2025, 1, 1, 9, tzinfo=UTC)
    targets = memory.remember_many(
        [FactDraft(text=f"Ann owns bike {n}.", known_from=when) for n in range(64)],
        user_id=user_id,
    ).added
    later = datetime(2025, 2, 1, 9, tzinfo=UTC)
    twice = [
        FactDraft(
            text=f"Ann sold bike set {n}.",
            known_from=later,
            supersedes=[SupersedeTarget(target_id=t) for t in targets],
        )
        for n in range(300)
    ]
    with pytest.raises(ConflictError, match="one successor"):
        memory.remember_many(twice, user_id=user_id)
    many = [
        FactDraft(text=f"Ann likes bike {n}.", known_from=later, relates=targets)
        for n in range(MAX_WRITE_LINKS // len(targets) + 1)
    ]
    with pytest.raises(ValidationError, match="the limit is"):
        memory.remember_many(many, user_id=user_id)
    # nothing of either was written: every target open, no new fact
    facts = memory.facts(user_id=user_id)
    assert {f.id for f in facts} == set(targets)
    history = memory.history(targets[0], user_id=user_id)
    assert history.successors == []
