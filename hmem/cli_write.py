"""CLI commands of the write path: add, worker, job, import, relations."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from hmem.errors import ValidationError
from hmem.extract.relations import policy_table
from hmem.memory import Memory

__all__ = ["register"]


def _memory() -> Memory:
    from hmem.cli import _config

    return Memory(_config())


def _parse_when(value: str | None, where: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValidationError(f"{where}: {value!r} is not an ISO-8601 date/time") from exc
    if parsed.tzinfo is None:
        raise ValidationError(f"{where}: {value!r} has no timezone; add Z or +02:00")
    return parsed


@click.command()
@click.option("--user", "user_id", required=True)
@click.option("--observed-at", help="when the session happened (ISO-8601 with zone)")
@click.option("--session", "session_id", help="your session id (provenance)")
@click.option("--background", is_flag=True, help="queue it and return the job id")
@click.argument("text")
def add(
    user_id: str, observed_at: str | None, session_id: str | None, background: bool, text: str
) -> None:
    """Remember what the user said (one extractor call; needs HMEM_LLM_*)."""
    with _memory() as memory:
        result = memory.add(
            text,
            user_id=user_id,
            observed_at=_parse_when(observed_at, "--observed-at"),
            session_id=session_id,
            background=background,
        )
    click.echo(json.dumps(result.as_dict()))


@click.command()
@click.option("--until-empty", is_flag=True, help="exit when no job is runnable")
@click.option("--poll", default=1.0, show_default=True, help="seconds between polls")
def worker(until_empty: bool, poll: float) -> None:
    """Process queued sessions (background adds) in observed_at order per user."""
    with _memory() as memory:
        total = 0
        try:
            while True:
                ran = memory.run_jobs(max_jobs=1)
                total += ran
                if ran:
                    click.echo(f"processed {total} job(s); queue: {memory.ingest.queue.counts()}")
                    continue
                if until_empty:
                    break
                time.sleep(poll)
        except KeyboardInterrupt:
            pass
        click.echo(f"worker done: {total} job(s); queue: {memory.ingest.queue.counts()}")


@click.command()
@click.option("--user", "user_id", required=True)
@click.option("--retry", is_flag=True, help="queue a failed job again")
@click.argument("job_id")
def job(user_id: str, retry: bool, job_id: str) -> None:
    """A session's job: status, attempts, result or error."""
    with _memory() as memory:
        found = (
            memory.retry_job(job_id, user_id=user_id)
            if retry
            else memory.job(job_id, user_id=user_id)
        )
    click.echo(json.dumps(found.public(), indent=2))


@click.command("import")
@click.option("--user", "user_id", required=True)
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_(user_id: str, path: Path) -> None:
    """Replay past sessions from a JSONL file, oldest first. Each line:
    {"observed_at": "2025-01-14T09:00:00Z", "session_id": "s1",
     "messages": [{"role": "user", "content": "..."}]}"""
    sessions: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            when = _parse_when(item["observed_at"], f"line {number}")
            sessions.append(
                {
                    "messages": item["messages"],
                    "observed_at": when,
                    "session_id": item.get("session_id"),
                }
            )
        except (KeyError, json.JSONDecodeError) as exc:
            raise ValidationError(f"{path}:{number}: {exc}") from exc
    sessions.sort(key=lambda s: s["observed_at"] or datetime.min.replace(tzinfo=UTC))
    totals: dict[str, int] = {"added": 0, "superseded": 0, "merged": 0, "skipped": 0}
    with _memory() as memory, click.progressbar(sessions, label="importing") as bar:
        for item in bar:
            result = memory.add(
                item["messages"],
                user_id=user_id,
                observed_at=item["observed_at"],
                session_id=item["session_id"],
            )
            totals["added"] += len(result.added)
            totals["superseded"] += len(result.superseded)
            totals["merged"] += len(result.merged)
            totals["skipped"] += result.skipped
    click.echo(json.dumps({"sessions": len(sessions), **totals}))


@click.command()
def relations() -> None:
    """The relation table: what each relation the model names does (no DELETE)."""
    click.echo(policy_table())


def register(group: click.Group) -> None:
    for command in (add, worker, job, import_, relations):
        group.add_command(command)
