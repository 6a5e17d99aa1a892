"""Kill the worker process mid-batch, start another: every session exactly once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from neo4j import Driver

from hmem import Config, Memory
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer


def _echo_fact(body: dict[str, Any]) -> dict[str, Any]:
    """An extractor that writes one fact from the session's words."""
    words = body["messages"][-1]["content"].split("USER'S MESSAGES:\n", 1)[1].strip()
    return {
        "facts": [
            {
                "text": f"Maya said: {words}",
                "category": "episodic",
                "importance": 3,
                "event_date": None,
                "entities": [],
                "relations": [],
            }
        ]
    }


def test_killed_worker_loses_nothing_and_repeats_nothing(
    config: Config, driver: Driver, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    queue = tmp_path / "queue.sqlite3"
    env = {
        **os.environ,
        "HMEM_LLM_BASE_URL": fake_openai.base_url,
        "HMEM_LLM_API_KEY": FAKE_API_KEY,
        "HMEM_EMBED_PROVIDER": "openai",
        "HMEM_EMBED_BASE_URL": fake_openai.base_url,
        "HMEM_EMBED_API_KEY": FAKE_API_KEY,
        "HMEM_QUEUE_PATH": str(queue),
        "HMEM_JOB_LEASE_S": "2",
    }
    users = [f"crash-{os.getpid()}-{n}" for n in range(2)]
    settings = Config(
        **{
            **config.model_dump(),
            "queue_path": queue,
            "job_lease_s": 2,
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": FAKE_API_KEY,
            "embed_provider": "openai",
            "embed_base_url": fake_openai.base_url,
            "embed_api_key": FAKE_API_KEY,
        }
    )
    memory = Memory(settings, driver=driver)
    try:
        jobs = []
        for n in range(8):
            user = users[n % 2]
            when = f"2026-01-{n + 1:02d}T10:00:00+00:00"
            from datetime import datetime

            result = memory.add(
                f"session number {n}",
                user_id=user,
                background=True,
                observed_at=datetime.fromisoformat(when),
            )
            jobs.append(result.job_id)
        # Three sessions go through, the fourth model call hangs: the kill lands exactly
        # mid-batch, however busy the machine is.
        asked, killed = threading.Event(), threading.Event()

        def hang(body: dict[str, Any]) -> dict[str, Any]:
            asked.set()
            killed.wait(120)  # nobody reads this answer: its worker is dead
            return _echo_fact(body)

        fake_openai.queue_chat(_echo_fact, _echo_fact, _echo_fact, hang)
        for _ in range(20):
            fake_openai.queue_chat(_echo_fact)

        worker = subprocess.Popen(
            [sys.executable, "-m", "hmem.cli", "worker", "--until-empty"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert asked.wait(120), "the fourth session never reached the model"
        worker.send_signal(signal.SIGKILL)
        worker.communicate(timeout=30)
        killed.set()
        counts = memory.ingest.queue.counts()
        assert counts.get("done", 0) == 3, counts  # killed mid-batch

        time.sleep(2.2)  # the dead worker's lease runs out
        again = subprocess.run(
            [sys.executable, "-m", "hmem.cli", "worker", "--until-empty"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert again.returncode == 0, again.stdout + again.stderr
        assert memory.ingest.queue.counts() == {"done": 8}

        for n, job_id in enumerate(jobs):
            user = users[n % 2]
            texts = [f.text for f in memory.facts(user_id=user, include_closed=True)]
            assert texts.count(f"Maya said: session number {n}") == 1, (n, texts)
            job = memory.job(job_id, user_id=user)
            assert job.status == "done"
        # at most one model call was repeated: the one in flight when the worker died
        assert 8 <= fake_openai.chat_calls <= 9
        # and each user's sessions ran in observed_at order
        for user in users:
            facts = memory.facts(user_id=user, include_closed=True)
            numbers = [
                int(re.findall(r"\d+", f.text)[0])
                for f in sorted(facts, key=lambda f: f.ingested_at)
            ]
            assert numbers == sorted(numbers)
    finally:
        for user in users:
            memory.erase_user(user)
        memory.shutdown()
