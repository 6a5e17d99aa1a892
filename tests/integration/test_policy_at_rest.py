"""Every secret of the policy table stays out of the queue, the prompt and the episode.

One session holds every row of ``tests/unit/extract/test_policy.py``'s SECRETS as its own user
message: it is accepted in the background (the queue row is read from the SQLite file),
then run (the prompt the fake model received is read), then exported (the episode).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from neo4j import Driver

from hmem import Config, Memory
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer
from tests.unit.extract.test_policy import SECRETS


def test_no_secret_of_the_table_reaches_queue_prompt_or_episode(
    config: Config, driver: Driver, user_id: str, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    queue = tmp_path / "queue.sqlite3"
    settings = Config(
        **{
            **config.model_dump(),
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "embed_provider": "openai",
            "embed_base_url": fake_openai.base_url,
            "embed_api_key": FAKE_API_KEY,
            "queue_path": queue,
        }
    )
    messages = [{"role": "user", "content": "I moved to Lyon in March."}] + [
        {"role": "user", "content": sentence} for sentence, _, _ in SECRETS
    ]
    moved = {
        "text": "The user moved to Lyon in March.",
        "category": "semantic",
        "importance": 5,
        "event_date": None,
        "entities": [],
        "relations": [],
    }
    fake_openai.queue_chat({"facts": [moved]})
    with Memory(settings, driver=driver) as memory:
        job = memory.add(messages, user_id=user_id, background=True)
        with sqlite3.connect(queue) as db:
            # the columns that carry text (ids, hashes and times may hold any digits:
            # "737", a CVV of the table, once matched a timestamp's microseconds)
            stored = json.dumps(
                [
                    list(row)
                    for row in db.execute(
                        "SELECT source_text, episode_text, refused, extraction, result, error"
                        " FROM jobs"
                    )
                ]
            )
        assert memory.run_jobs() == 1
        assert memory.job(job.job_id, user_id=user_id).status == "done"
        [episode] = memory.export(user_id).episodes
    prompt = json.dumps(
        [m.get("content") for r in fake_openai.chat_requests for m in r["messages"]],
        ensure_ascii=False,
    )
    assert "Lyon" in prompt and "Lyon" in episode.text  # the ordinary sentence got through
    for sentence, _, secret in SECRETS:
        for where, text in (("queue", stored), ("prompt", prompt), ("episode", episode.text)):
            assert secret not in text and json.dumps(secret)[1:-1] not in text, (where, sentence)
