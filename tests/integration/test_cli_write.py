"""The write-path CLI: add, worker, job, import, relations (a fake model over HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from hmem import Memory
from hmem.cli import main
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer


def _reply(text: str) -> dict[str, object]:
    return {
        "facts": [
            {
                "text": text,
                "category": "semantic",
                "importance": 5,
                "event_date": None,
                "entities": [],
                "relations": [],
            }
        ]
    }


def test_add_worker_job_import_relations(
    memory: Memory, user_id: str, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    env = {
        "HMEM_LLM_BASE_URL": fake_openai.base_url,
        "HMEM_LLM_API_KEY": FAKE_API_KEY,
        "HMEM_QUEUE_PATH": str(tmp_path / "queue.sqlite3"),
    }
    runner = CliRunner(env=env)

    out = runner.invoke(main, ["relations"])
    assert out.exit_code == 0 and "contradicts       supersede" in out.output

    fake_openai.queue_chat(_reply("Maya lives in Oslo."))
    out = runner.invoke(main, ["add", "--user", user_id, "--background", "I live in Oslo."])
    assert out.exit_code == 0, out.output
    job_id = json.loads(out.output)["job_id"]
    out = runner.invoke(main, ["worker", "--until-empty"])
    assert out.exit_code == 0 and "worker done: 1 job(s)" in out.output
    out = runner.invoke(main, ["job", "--user", user_id, job_id])
    assert json.loads(out.output)["status"] == "done"

    sessions = tmp_path / "sessions.jsonl"
    sessions.write_text(
        json.dumps(
            {
                "observed_at": "2026-02-01T10:00:00Z",
                "session_id": "b",
                "messages": [{"role": "user", "content": "I have a dog, Rex."}],
            }
        )
        + "\n"
        + json.dumps(
            {
                "observed_at": "2026-01-01T10:00:00Z",
                "session_id": "a",
                "messages": [{"role": "user", "content": "I play chess."}],
            }
        )
        + "\n"
    )
    fake_openai.queue_chat(_reply("Maya plays chess."), _reply("Maya has a dog named Rex."))
    out = runner.invoke(main, ["import", "--user", user_id, str(sessions)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output.splitlines()[-1]) == {
        "sessions": 2,
        "added": 2,
        "superseded": 0,
        "merged": 0,
        "skipped": 0,
    }
    # replayed oldest first: the January session was sent to the model first
    assert "I play chess." in fake_openai.chat_requests[1]["messages"][-1]["content"]

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"observed_at": "2026-01-01", "messages": []}\n')
    out = runner.invoke(main, ["import", "--user", user_id, str(bad)])
    assert out.exit_code == 1 and "no timezone" in out.output

    out = runner.invoke(main, ["job", "--user", "someone-else", job_id])
    assert out.exit_code == 1 and "NotFoundError" in out.output
    assert {f.text for f in memory.facts(user_id=user_id)} == {
        "Maya lives in Oslo.",
        "Maya plays chess.",
        "Maya has a dog named Rex.",
    }


def test_import_facts_in_batches_keeps_supersession_order(
    memory: Memory, user_id: str, tmp_path: Path
) -> None:
    lines = [
        {"text": f"Maya read book number {n}.", "observed_at": f"2025-01-{n + 1:02d}T09:00:00Z"}
        for n in range(7)
    ]
    lines.insert(
        0,  # written out of order: the import sorts by observed_at
        {
            "id": "moved",
            "text": "Maya moved from London to Paris.",
            "observed_at": "2025-02-01T09:00:00Z",
            "supersedes": [{"target_id": "home", "reason": "contradiction"}],
            "entities": [{"name": "Maya"}, {"name": "Maya"}, {"name": "Paris"}],
        },
    )
    lines.append(
        {"id": "home", "text": "Maya lives in London.", "observed_at": "2025-01-03T10:00:00Z"}
    )
    path = tmp_path / "facts.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    runner = CliRunner(env={"HMEM_QUEUE_PATH": str(tmp_path / "queue.sqlite3")})
    out = runner.invoke(main, ["import", "facts", "--batch", "3", "--user", user_id, str(path)])
    assert out.exit_code == 0, out.output
    counts = json.loads(out.output.strip().splitlines()[-1])
    assert counts["facts"] == 9
    assert counts["added"] == 9
    assert counts["superseded"] == 1
    [home] = [f for f in memory.facts(user_id=user_id, include_closed=True) if f.id == "home"]
    assert home.known_to is not None
    moved = memory.get("moved", user_id=user_id)
    assert moved.entities == ["Maya", "Paris"]
    assert memory.import_facts([], user_id=user_id).added == []

    path.write_text('{"text": "no zone", "observed_at": "2025-01-01T09:00:00"}\n')
    out = runner.invoke(main, ["import", "facts", "--user", user_id, str(path)])
    assert out.exit_code != 0
