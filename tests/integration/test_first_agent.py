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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_twice_for_one_user_leaves_the_same_memory(memory: Memory) -> None:
    """docs/first-agent.md runs the script twice for one user: the second run keeps what
    the first stored (no second open "Sam lives in Lisbon" beside the move)."""
    user = f"first-agent-{uuid.uuid4().hex[:10]}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("HMEM_LLM_BASE_URL", "HMEM_LLM_API_KEY", "HMEM_LLM_MODEL"):
        env.pop(name, None)
    states = []
    try:
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, str(ROOT / "docs" / "first_agent.py"), user],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            states.append(
                sorted((f.text, f.is_open) for f in memory.facts(user_id=user, include_closed=True))
            )
        assert states[0] == states[1]
        assert ("Sam lives in Lisbon.", False) in states[1]
        assert [t for t, is_open in states[1] if is_open and "Lisbon" in t] == [
            "Sam moved from Lisbon to Porto in June 2026."
        ]
        assert "(kept from an earlier run: Sam lives in Lisbon.)" in done.stdout
    finally:
        memory.erase_user(user)


def test_without_the_chat_model_it_says_so_and_still_erases(memory: Memory) -> None:
    """The Ollama variant with no Ollama: one clear line, exit 1, and the erase it
    promised, in seconds (no traceback after the client's retries)."""
    user = f"first-agent-{uuid.uuid4().hex[:10]}"
    memory.remember("Sam owns a kayak.", user_id=user)
    dead = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HMEM_LLM_BASE_URL": dead,
        "HMEM_LLM_MODEL": "llama3.1",
    }
    try:
        done = subprocess.run(
            [sys.executable, str(ROOT / "docs" / "first_agent.py"), user, "--erase"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert f"first_agent.py: no chat model answers at {dead}" in done.stderr
        assert "ollama serve" in done.stderr
        assert f"--- erased user {user} ---" in done.stdout
        assert memory.facts(user_id=user, include_closed=True) == []
    finally:
        memory.erase_user(user)
