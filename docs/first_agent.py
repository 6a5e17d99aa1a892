"""From zero to an agent that remembers (docs/first-agent.md walks through it).

    .venv/bin/python docs/first_agent.py [USER_ID] [--erase]

Writes what a user said over a few months, searches it, builds the prompt with the
context block, asks a chat model (any OpenAI-compatible endpoint from HMEM_LLM_*; with
none configured it prints the prompt it would send), and writes back what the user said
in this turn. Runs against the Neo4j of HMEM_NEO4J_* (make demo's by default).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from openai import OpenAI

from hmem import Config, Memory

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
    )
    reply = client.chat.completions.create(
        model=config.llm_model,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
    return reply.choices[0].message.content or ""


def main(user: str, erase: bool) -> None:
    config = Config()
    with Memory(config) as memory:
        memory.init_schema()

        # 1. Write: what the user told the assistant, each with when it was said.
        lisbon = memory.remember(
            "Sam lives in Lisbon.", user_id=user, observed_at=day(2026, 1, 10),
            valid_from=day(2021, 5, 1), entities=["Sam", "Lisbon"],
        )  # fmt: skip
        memory.remember(
            "Sam is allergic to shellfish.", user_id=user, observed_at=day(2026, 1, 10),
            entities=["Sam"], importance=9,
        )  # fmt: skip
        # a later session: the move replaces Lisbon, which stays as history
        memory.remember(
            "Sam moved from Lisbon to Porto in June 2026.", user_id=user,
            observed_at=day(2026, 6, 20), valid_from=day(2026, 6, 15),
            supersedes=lisbon.added, entities=["Sam", "Lisbon", "Porto"],
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
        memory.remember(
            "Sam has been vegetarian since July 2026.", user_id=user,
            observed_at=day(2026, 8, 2), valid_from=day(2026, 7, 1), entities=["Sam"],
        )  # fmt: skip

        # The next turn's context has it.
        print("--- next turn's context ---")
        print(memory.search("Sam here again: what should I cook tonight?", user_id=user).context)

        if erase:
            memory.erase_user(user)
            print(f"--- erased user {user} ---")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--erase"]
    main(args[0] if args else "demo:sam", erase="--erase" in sys.argv[1:])
