"""docs/first_agent.py runs as docs/first-agent.md says: it writes, searches, builds the
prompt with the context block, asks the chat model (the fake OpenAI server), writes back."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from hmem import Memory
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer

ROOT = Path(__file__).parents[2]


def test_the_first_agent_script_remembers(memory: Memory, fake_openai: FakeOpenAIServer) -> None:
    user = f"first-agent-{uuid.uuid4().hex[:10]}"
    # With a model configured, a plain-text write with neighbours asks it once what the
    # text changes (hmem.infer.model): the allergy, beside Lisbon, changes nothing.
    fake_openai.queue_chat(
        '{"judgements": []}', "Try Taberna do Largo in Porto: no shellfish on their menu."
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HMEM_LLM_BASE_URL": fake_openai.base_url,
        "HMEM_LLM_API_KEY": FAKE_API_KEY,
        "HMEM_LLM_MODEL": "fake-chat",
    }
    try:
        done = subprocess.run(
            [sys.executable, str(ROOT / "docs" / "first_agent.py"), user],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        prompt, _, rest = done.stdout.partition("--- assistant ---")
        assert "Sam moved from Lisbon to Porto in June 2026 (since 2026-06-15" in prompt
        assert "Sam is allergic to shellfish" in prompt
        assert "Try Taberna do Largo in Porto" in rest
        [judge, request] = fake_openai.chat_requests
        assert "Sam is allergic to shellfish" in judge["messages"][-1]["content"]
        assert "Sam is allergic to shellfish" in request["messages"][0]["content"]
        assert "Sam has been vegetarian since July 2026" in rest.split("next turn's context")[1]
        texts = {f.text for f in memory.facts(user_id=user)}
        assert texts == {
            "Sam is allergic to shellfish.",
            "Sam moved from Lisbon to Porto in June 2026.",
            "Sam has been vegetarian since July 2026.",
        }
    finally:
        memory.erase_user(user)
