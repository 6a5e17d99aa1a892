"""CLI commands of the write path: add, worker, job, import, relations."""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import pydantic

from hmem.cli._common import open_memory as _memory
from hmem.cli.import_graphiti import import_graphiti_cmd
from hmem.errors import PolicyRefusal, RetryableError, ValidationError
from hmem.extract.entities import pipeline_name
from hmem.extract.policy import require_allowed
from hmem.extract.relations import policy_table
from hmem.memory import NO_CHAT_MODEL, NO_EMBEDDER, Memory
from hmem.models import Category, FactDraft, UserExport, require_aware

__all__ = ["register"]


def _parse_when(value: str | None, where: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValidationError(f"{where}: {value!r} is not an ISO-8601 date/time") from exc
    if parsed.tzinfo is None:
        raise ValidationError(f"{where}: {value!r} has no timezone; add Z or +02:00")
    return require_aware(parsed, where)


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
                try:
                    ran = memory.run_jobs(max_jobs=1)
                except RetryableError as exc:  # the shared queue is unreachable: wait
                    click.echo(f"worker waiting: {exc}", err=True)
                    time.sleep(poll)
                    continue
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


class _ImportGroup(click.Group):
    """``hmem import PATH`` (sessions, the original form) or ``hmem import SOURCE ...``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["sessions", *args]
        return super().parse_args(ctx, args)


@click.group("import", cls=_ImportGroup)
def import_() -> None:
    """Bring past memories in: chat sessions from JSONL (`hmem import --user U FILE`),
    known facts (`hmem import facts --user U FILE`), an `hmem export` (`hmem import
    export --user U FILE`) or a Graphiti graph (`hmem import graphiti --group-id G
    --user U`)."""


def _read_sessions(path: Path) -> list[dict[str, Any]]:
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
    return sessions


def _turn_drafts(
    memory: Memory, user_id: str, item: dict[str, Any], totals: dict[str, int]
) -> list[FactDraft]:
    """The user's own messages of one session as facts (no model): ids derived from the
    user, session and turn, so a rerun writes nothing new."""
    drafts = []
    session = item["session_id"] or item["observed_at"].isoformat()
    for index, message in enumerate(item["messages"]):
        text = " ".join(str(message.get("content", "")).split())
        if message.get("role") != "user" or not text:
            continue  # only the user's own words are a source
        if len(text) > memory.config.max_fact_chars:
            totals["too_long"] += 1
            continue
        try:
            require_allowed(text)
        except PolicyRefusal:
            totals["refused"] += 1
            continue
        drafts.append(
            FactDraft(
                text=text,
                category=Category.EPISODIC,
                known_from=item["observed_at"],
                source=f"import:{session}"[:200],
                # the message's name (who said it), when the file gives one
                speaker=str(message.get("name") or "")[:200] or None,
                id=uuid.uuid5(_TURNS, f"{user_id}/{session}/{index}").hex,
            )
        )
    return drafts


_TURNS = uuid.UUID("1b0c7f1e-5d0a-4b7e-9c1e-13b0000000a1")


def _note_no_embedder(memory: Memory) -> None:
    """One line on stderr when the imported facts get no vectors."""
    if memory.embedder is None:
        click.echo(
            "note: no embedding model, so the imported facts get no vectors (search is "
            f"lexical + entity until `hmem reembed`): {NO_EMBEDDER}",
            err=True,
        )


def _note_no_model(memory: Memory) -> None:
    """One line on stderr: why the import runs without the extractor, and how entities
    are found instead."""
    ner = memory.config.ner
    entities = (
        "no entities (HMEM_NER=off)"
        if ner == "off"
        else f"entities by spaCy ({pipeline_name(trained=ner == 'auto')})"
    )
    click.echo(
        f"note: {NO_CHAT_MODEL}; importing each user message as one fact, {entities} "
        "(--model requires the extractor)",
        err=True,
    )


@import_.command("sessions")
@click.option("--user", "user_id", required=True)
@click.option(
    "--model/--no-model",
    "use_model",
    default=None,
    help="extract facts with the language model (HMEM_LLM_*), or not: each user message "
    "becomes one fact, entities found by spaCy. Default: the model when one is configured",
)
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_sessions(user_id: str, use_model: bool | None, path: Path) -> None:
    """Replay past sessions from a JSONL file, oldest first. Each line:
    {"observed_at": "2025-01-14T09:00:00Z", "session_id": "s1",
     "messages": [{"role": "user", "content": "..."}]}"""
    sessions = _read_sessions(path)
    totals: dict[str, int] = {"added": 0, "superseded": 0, "merged": 0, "skipped": 0}
    with _memory() as memory:
        if use_model is None:
            use_model = memory.extraction_configured
            if not use_model:
                _note_no_model(memory)
        _note_no_embedder(memory)
        no_model = not use_model
        if no_model:
            totals.update(refused=0, too_long=0)
        _import_sessions(memory, user_id, sessions, no_model, totals)
    click.echo(json.dumps({"sessions": len(sessions), **totals}))


def _import_sessions(
    memory: Memory,
    user_id: str,
    sessions: list[dict[str, Any]],
    no_model: bool,
    totals: dict[str, int],
) -> None:
    with click.progressbar(sessions, label="importing") as bar:
        before = memory.store.entity_links(user_id)
        turns: list[FactDraft] = []
        for item in bar:
            if no_model:
                turns += _turn_drafts(memory, user_id, item, totals)
                continue
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
        if no_model:  # the bulk path: large transactions, oldest first
            written = memory.import_facts(turns, user_id=user_id)
            totals["added"] += len(written.added)
            totals["skipped"] += written.skipped
            after = memory.store.entity_links(user_id)
            totals["entity_links"] = after["links"] - before["links"]
            totals["entities"] = after["entities"]


import_.add_command(import_graphiti_cmd)  # hmem/cli/import_graphiti.py


@import_.command("facts")
@click.option("--user", "user_id", required=True)
@click.option("--batch", default=2000, show_default=True, help="facts per transaction")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_facts(user_id: str, batch: int, path: Path) -> None:
    """Write known facts from a JSONL file directly (no model), oldest first, in large
    transactions (Memory.import_facts). Each line has FactDraft's fields, with
    "observed_at" for known_from, e.g. {"text": "Maya lives in London.", "observed_at":
    "2025-01-14T09:00:00Z", "entities": [{"name": "Maya"}], "id": "f1"}."""
    drafts: list[FactDraft] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if "observed_at" in item:
                item["known_from"] = item.pop("observed_at")
            drafts.append(FactDraft.model_validate(item))
        except (json.JSONDecodeError, pydantic.ValidationError) as exc:
            raise ValidationError(f"{path}:{number}: {exc}") from exc
    with _memory() as memory:
        _note_no_embedder(memory)
        result = memory.import_facts(drafts, user_id=user_id, batch_size=batch)
    click.echo(json.dumps({"facts": len(drafts), **result.counts()}))


@import_.command("export")
@click.option("--user", "user_id", required=True)
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_export(user_id: str, path: Path) -> None:
    """Bring back what `hmem export` wrote (a JSON file) as user U: the facts with both
    windows and their belief history, entities, episodes, supersessions (undone ones
    too) and the profile. A rerun adds nothing."""
    try:
        data = UserExport.model_validate_json(path.read_text(encoding="utf-8"))
    except pydantic.ValidationError as exc:
        raise ValidationError(f"{path}: not an hmem export ({exc.errors()[0]['msg']})") from exc
    with _memory() as memory:
        _note_no_embedder(memory)
        counts = memory.import_export(data, user_id=user_id)
    click.echo(json.dumps({"facts_in_file": len(data.facts), **counts}))


@click.command()
def relations() -> None:
    """The relation table: what each relation the model names does (no DELETE)."""
    click.echo(policy_table())


def register(group: click.Group) -> None:
    for command in (add, worker, job, import_, relations):
        group.add_command(command)
