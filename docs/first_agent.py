"""From zero to an agent that remembers (docs/first-agent.md walks through it).

    .venv/bin/python docs/first_agent.py [USER_ID] [--erase]

Writes what a user said over a few months, searches it, builds the prompt with the
context block, asks a chat model (any OpenAI-compatible endpoint from HMEM_LLM_*; with
none configured it prints the prompt it would send), and writes back what the user said
in this turn. Runs against the Neo4j of HMEM_NEO4J_* (make demo's by default).

Safe to run again for the same user: what an earlier run stored is kept, not written a
second time. A chat model that does not answer (Ollama not running) ends the run with
one line saying so, after the erase that --erase asked for.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any

import httpx
from openai import APIError, OpenAI

from hmem import Config, HmemError, Memory

SYSTEM = """You are a helpful assistant. What you remember about the user, with the dates
when each thing was true, is below; prefer what is true now.

{context}"""


def day(year: int, month: int, d: int) -> datetime:
    return datetime(year, month, d, 9, 0, tzinfo=UTC)


def ask_model(config: Config, system: str, question: str) -> str:
    if config.llm_base_url is None and config.llm_api_key is None:
        return "(no model configured: set HMEM_LLM_BASE_URL / HMEM_LLM_MODEL to get an answer)"
    client = OpenAI(
        base_url=config.llm_base_url,
        api_key=config.llm_api_key.get_secret_value() if config.llm_api_key else "none",
        max_retries=0,
    )
    reply = client.chat.completions.create(
        model=config.llm_model,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
    return reply.choices[0].message.content or ""


def model_unreachable(config: Config) -> str | None:
    """Why the configured chat model cannot be asked (nothing answers at its URL), or
    None: a few seconds, not a traceback after the client's retries."""
    if config.llm_base_url is None:
        return None
    try:
        httpx.get(f"{config.llm_base_url.rstrip('/')}/models", timeout=5)
    except httpx.HTTPError as exc:
        return (
            f"no chat model answers at {config.llm_base_url} ({type(exc).__name__}); is it "
            "running? For Ollama: `ollama serve`, then `ollama pull llama3.1`"
        )
    return None


def remember_once(memory: Memory, stored: dict[str, str], text: str, **kw: Any) -> str:
    """``memory.remember(text, ...)`` unless an earlier run stored the same text; the id."""
    if text in stored:
        print(f"(kept from an earlier run: {text})")
        return stored[text]
    result = memory.remember(text, **kw)
    stored[text] = (result.added or result.merged or [""])[0]
    return stored[text]


def main(user: str, erase: bool) -> int:
    config = Config()
    problem = model_unreachable(config)
    with Memory(config) as memory:
        # off: no embedding model (give the script the folder you gave make demo)
        print(f"dense search: {memory.capabilities()['dense_embeddings']}")
        try:
            if problem is None:
                run(memory, config, user)
        except (APIError, HmemError) as exc:
            problem = f"the chat model failed: {type(exc).__name__}: {exc}"
        finally:
            if erase:
                memory.erase_user(user)
                print(f"--- erased user {user} ---")
    if problem is not None:
        print(f"first_agent.py: {problem}", file=sys.stderr)
        return 1
    return 0


def run(memory: Memory, config: Config, user: str) -> None:
    # What an earlier run of this script stored for the user, by text (kept, not doubled).
    stored = {f.text: f.id for f in memory.facts(user_id=user, include_closed=True)}

    # 1. Write: what the user told the assistant, each with when it was said.
    lisbon = remember_once(
        memory, stored, "Sam lives in Lisbon.", user_id=user, observed_at=day(2026, 1, 10),
        valid_from=day(2021, 5, 1), entities=["Sam", "Lisbon"],
    )  # fmt: skip
    remember_once(
        memory, stored, "Sam is allergic to shellfish.", user_id=user,
        observed_at=day(2026, 1, 10), entities=["Sam"], importance=9,
    )  # fmt: skip
    # a later session: the move replaces Lisbon, which stays as history
    remember_once(
        memory, stored, "Sam moved from Lisbon to Porto in June 2026.", user_id=user,
        observed_at=day(2026, 6, 20), valid_from=day(2026, 6, 15),
        supersedes=[lisbon], entities=["Sam", "Lisbon", "Porto"],
    )  # fmt: skip

    # 2. Search, 3. build the prompt with the context block.
    question = "Sam here: can you suggest a place for dinner tonight?"
    found = memory.search(question, user_id=user)
    system = SYSTEM.format(context=found.context)
    print("--- prompt ---")
    print(system)
    print("--- user ---")
    print(question)

    answer = ask_model(config, system, question)
    print("--- assistant ---")
    print(answer)

    # 4. Write back what the user said in this turn (a model-free write; with a chat
    # model, memory.add(messages, ...) extracts the facts from the whole exchange).
    said = "Thanks! By the way, I have been vegetarian since July."
    print("--- user ---")
    print(said)
    remember_once(
        memory, stored, "Sam has been vegetarian since July 2026.", user_id=user,
        observed_at=day(2026, 8, 2), valid_from=day(2026, 7, 1), entities=["Sam"],
    )  # fmt: skip

    # The next turn's context has it.
    print("--- next turn's context ---")
    print(memory.search("Sam here again: what should I cook tonight?", user_id=user).context)
    print(where_to_look(user))


def where_to_look(user: str) -> str:
    """Where to see what this script stored for ``user`` ("demo:sam": user sam of tenant
    demo, which the demo's key shows in the inspector)."""
    tenant, _, name = user.rpartition(":")
    if not tenant:
        return f"--- stored for user {user!r} (no tenant): .venv/bin/hmem facts --user {user} --all"
    return (
        f"--- stored for user {name!r} of tenant {tenant!r} (in Neo4j {user!r}): "
        f"http://127.0.0.1:8000/inspector/#user={name} (the demo key, for tenant demo), "
        f".venv/bin/hmem facts --tenant {tenant} --user {name} --all"
    )


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--erase"]
    sys.exit(main(args[0] if args else "demo:sam", erase="--erase" in sys.argv[1:]))
