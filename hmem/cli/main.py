"""The ``hmem`` command: run a local Neo4j, apply the schema, seed the demo, inspect."""

from __future__ import annotations

import functools
import importlib
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hmem.cli._common import load_config
from hmem.cli._common import open_memory as _memory
from hmem.cli.bench import bench
from hmem.errors import DateRangeError, HmemError

if TYPE_CHECKING:  # imported where used: `hmem --help` and light commands stay fast
    from hmem.config import Config
    from hmem.localdb import LocalNeo4j
    from hmem.models import Fact, SupersessionLink

__all__ = ["main"]


_config = load_config


def _local(config: Config) -> LocalNeo4j:
    from hmem.localdb import LocalNeo4j

    port = int(config.neo4j_uri.rsplit(":", 1)[-1].split("/")[0])
    return LocalNeo4j(
        config.neo4j_home,
        bolt_port=port,
        http_port=config.neo4j_http_port,
        version=config.neo4j_version,
        tls=config.neo4j_tls == "optional",
    )


def _when(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise click.BadParameter(f"{value!r} is not an ISO-8601 date/time") from exc
    if parsed.tzinfo is None:
        raise click.BadParameter(f"{value!r} has no timezone; add Z or +02:00")
    from hmem.models import require_aware

    try:
        return require_aware(parsed, value)
    except DateRangeError as exc:
        raise click.BadParameter(str(exc)) from exc


def _line(fact: Fact) -> str:
    window = (
        f"{fact.valid_from:%Y-%m-%d}→{fact.valid_to:%Y-%m-%d}"
        if fact.valid_to
        else (f"{fact.valid_from:%Y-%m-%d}→")
    )
    state = "open" if fact.is_open else f"closed ({fact.close_reason})"
    return f"{fact.id}  [{window}] {state:<24} {fact.text}"


# Commands whose modules are heavy (the HTTP app, the write path, the MCP SDK): imported
# when invoked, so `hmem --help` and the light commands never load them. Each help line
# is spelled here for --help; a unit test holds it equal to the command's own.
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "serve": ("hmem.cli.serve", "serve", "Run the HTTP API (Ctrl-C stops it)."),
    "keys": (
        "hmem.cli.serve",
        "keys",
        "API keys: each belongs to a tenant and may be limited to some of its users.",
    ),
    "mcp": (
        "hmem.cli.serve",
        "mcp",
        "An MCP server on stdio (remember / recall / history / forget) for agent hosts.",
    ),
    "add": (
        "hmem.cli.write",
        "add",
        "Remember what the user said (one extractor call; needs HMEM_LLM_*).",
    ),
    "worker": (
        "hmem.cli.write",
        "worker",
        "Process queued sessions (background adds) in observed_at order per user.",
    ),
    "job": ("hmem.cli.write", "job", "A session's job: status, attempts, result or error."),
    "import": (
        "hmem.cli.write",
        "import_",
        "Bring past memories in: chat sessions from JSONL (`hmem import --user U FILE`), "
        "known facts (`hmem import facts --user U FILE`), an `hmem export` (`hmem import "
        "export --user U FILE`) or a Graphiti graph (`hmem import graphiti --group-id G "
        "--user U`).",
    ),
    "relations": (
        "hmem.cli.write",
        "relations",
        "The relation table: what each relation the model names does (no DELETE).",
    ),
    "forget": (
        "hmem.cli.edits",
        "forget",
        "Close a fact with no successor (never deletes; `hmem restore` undoes it).",
    ),
    "restore": (
        "hmem.cli.edits",
        "restore",
        "Undo a close or a supersession: the fact is believed again.",
    ),
}


def _tenanted(command: Any) -> Any:
    """``--tenant T --user U`` names the API's user U of tenant T (stored as ``T:U``), so
    the CLI, the API and Neo4j Browser mean one user by one name."""

    @functools.wraps(command)
    def run(*args: Any, tenant: str | None, **kwargs: Any) -> Any:
        if tenant is not None:
            from hmem.graph.apikeys import check_tenant, check_user_name

            try:
                check_tenant(tenant)
                check_user_name(kwargs["user_id"])
            except HmemError as exc:
                raise click.BadParameter(str(exc)) from exc
            kwargs["user_id"] = f"{tenant}:{kwargs['user_id']}"
        return command(*args, **kwargs)

    return click.option(
        "--tenant", help="the API tenant whose --user this is (e.g. demo: the demo's maya)"
    )(run)


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except HmemError as exc:
            raise click.ClickException(f"{type(exc).__name__}: {exc}") from exc

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in LAZY_COMMANDS:
            module, attr, _ = LAZY_COMMANDS[cmd_name]
            command = getattr(importlib.import_module(module), attr)
            assert isinstance(command, click.Command)
            self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own listing, except that a command not imported yet shows its line
        # from LAZY_COMMANDS instead of being imported for it.
        rows: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name) or click.Command(name, help=LAZY_COMMANDS[name][2])
            if not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(n, c.get_short_help_str(limit)) for n, c in rows])


@click.group(cls=_Group)
@click.version_option(package_name="hmem")
def main() -> None:
    """hmem: graph-backed, bitemporal memory for AI agents (settings: HMEM_* variables)."""


@main.group()
def neo4j() -> None:
    """A local Neo4j Community server (5.26 LTS, or 2026.x with HMEM_NEO4J_VERSION=2026),
    assembled from Maven Central (no Docker)."""


@neo4j.command("start")
@click.option("--timeout", default=180.0, show_default=True, help="seconds to wait for Bolt")
def neo4j_start(timeout: float) -> None:
    """Fetch the jars once, start in the background, wait until Bolt answers."""
    server = _local(_config())
    server.start(timeout=timeout)
    click.echo(f"bolt:    {server.bolt_uri}  (user neo4j, password in {server.password_file})")
    click.echo(f"browser: {server.browser_url}")


@neo4j.command("stop")
def neo4j_stop() -> None:
    """Stop the local server cleanly."""
    if not _local(_config()).stop():
        click.echo("not running")


@neo4j.command("status")
def neo4j_status() -> None:
    """Exit 0 if the local server runs, 3 if not."""
    server = _local(_config())
    pid = server.pid()
    if pid is None:
        click.echo("not running")
        sys.exit(3)
    click.echo(f"running (pid {pid}) at {server.bolt_uri}; browser {server.browser_url}")


@neo4j.command("plugin")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="the folder to write the jar to, e.g. your Neo4j's plugins/",
)
def neo4j_plugin(out: Path) -> None:
    """Build hmem's Neo4j plugin (the hmem.vector.topk procedure) for a Neo4j 5.26 of
    your own: copy the jar into its plugins/ folder and restart it. The local server of
    `hmem neo4j start` installs it by itself."""
    server = _local(_config())
    server.fetch()
    jar = server.plugin_jar(server.java())
    if jar is None:
        raise click.ClickException("no javac beside the Java runtime: install a JDK 17 or 21")
    from hmem.localdb.plugin import PROCEDURE, install

    target = install(jar, out)
    click.echo(f"{target}  ({PROCEDURE}, built against Neo4j {server.version})")


@main.command("init-schema")
def init_schema() -> None:
    """Create hmem's constraints and indexes (idempotent; checks the vector dimension)."""
    with _memory(embed=False) as memory:
        memory.init_schema()
    click.echo("schema ready")


@main.command()
@click.option("--user", "user_id", default="maya", show_default=True)
def demo(user_id: str) -> None:
    """Seed the Maya story (London → Paris) through direct writes and show it."""
    from hmem.demo import seed_demo

    config = _config()
    with _memory(config) as memory:
        memory.init_schema()
        ids = seed_demo(memory, user_id)
        click.echo(f"Seeded user {user_id!r}. Current facts:")
        for fact in memory.facts(user_id=user_id):
            click.echo("  " + fact.text)
        history = memory.history(ids.paris, user_id=user_id)
        for step in history.predecessors:
            click.echo(
                f"Before: {step.fact.text} (true until {step.fact.valid_to:%Y-%m-%d}, "
                f"replaced: {step.link.reason})"
            )
    click.echo(f"Explore in Neo4j Browser: http://127.0.0.1:{config.neo4j_http_port}/browser/")
    click.echo(f"  :param user_id => '{user_id}'   then the query in cypher/user_graph.cypher")


@main.command()
@_tenanted
@click.option("--user", "user_id", required=True)
@click.option("--as-of", help="belief time: what was believed then (ISO-8601 with zone)")
@click.option("--as-of-event", help="world time: what was true then (ISO-8601 with zone)")
@click.option("--all", "include_closed", is_flag=True, help="include closed facts")
@click.option("--json", "as_json", is_flag=True)
@click.option("--limit", default=100, show_default=True)
def facts(
    user_id: str,
    as_of: str | None,
    as_of_event: str | None,
    include_closed: bool,
    as_json: bool,
    limit: int,
) -> None:
    """List a user's facts: current by default, or as of a time."""
    with _memory(embed=False) as memory:
        found = memory.facts(
            user_id=user_id,
            as_of=_when(as_of),
            as_of_event=_when(as_of_event),
            include_closed=include_closed,
            limit=limit,
        )
    if as_json:
        click.echo(json.dumps([f.model_dump(mode="json") for f in found], indent=2))
        return
    for fact in found:
        click.echo(_line(fact))


@main.command()
@_tenanted
@click.option("--user", "user_id", required=True)
@click.option("--as-of", help="belief time: the chain as believed then (ISO-8601 with zone)")
@click.argument("fact_id")
def history(user_id: str, as_of: str | None, fact_id: str) -> None:
    """A fact with what it replaced and what replaced it."""
    with _memory(embed=False) as memory:
        chain = memory.history(fact_id, user_id=user_id, as_of=_when(as_of))
    for step in chain.predecessors:
        click.echo(f"before  {_line(step.fact)}  ({_link(step.link)})")
    click.echo(f"this    {_line(chain.fact)}")
    for step in chain.successors:
        click.echo(f"after   {_line(step.fact)}  ({_link(step.link)})")


def _link(link: SupersessionLink) -> str:
    """A link's reason and day; an inferred one's cue and score too."""
    text = f"{link.reason} on {link.at:%Y-%m-%d}"
    if link.inferred:
        text += f", inferred from {link.cue!r} (score {link.score})"
    return text


@main.command()
@_tenanted
@click.option("--user", "user_id", required=True)
@click.option("--observed-at", help="when the user said it (ISO-8601 with zone)")
@click.option("--valid-from", help="when it became true (ISO-8601 with zone)")
@click.option("--supersedes", multiple=True, help="id of a fact this one replaces")
@click.option("--entity", "entities", multiple=True, help="a name the fact mentions")
@click.option("--speaker", help="who said it, for a chat turn")
@click.option(
    "--infer/--no-infer",
    default=None,
    help="read time from the words (dates, the facts it changes); default: infer when "
    "neither --supersedes nor --valid-from is given",
)
@click.argument("text")
def remember(
    user_id: str,
    observed_at: str | None,
    valid_from: str | None,
    supersedes: tuple[str, ...],
    entities: tuple[str, ...],
    speaker: str | None,
    infer: bool | None,
    text: str,
) -> None:
    """Write one fact directly (no model)."""
    with _memory() as memory:
        result = memory.remember(
            text,
            user_id=user_id,
            observed_at=_when(observed_at),
            valid_from=_when(valid_from),
            supersedes=supersedes,
            entities=entities,
            speaker=speaker,
            infer=infer,
        )
    click.echo(json.dumps(result.model_dump(mode="json")))


@main.command()
@_tenanted
@click.option("--user", "user_id", required=True)
def export(user_id: str) -> None:
    """Everything stored for a user, as JSON."""
    with _memory(embed=False) as memory:
        click.echo(memory.export(user_id).model_dump_json(indent=2))


@main.command()
@_tenanted
@click.option("--user", "user_id", required=True)
@click.option("--fact", "fact_id", help="erase only this fact")
@click.option("--yes", is_flag=True, help="do not ask")
def erase(user_id: str, fact_id: str | None, yes: bool) -> None:
    """Really delete a fact, or everything of a user (right to be forgotten)."""
    what = f"fact {fact_id}" if fact_id else f"ALL data of user {user_id!r}"
    if not yes:
        click.confirm(f"Erase {what}? This cannot be undone", abort=True)
    with _memory(embed=False) as memory:
        counts = memory.erase(fact_id, user_id=user_id) if fact_id else memory.erase_user(user_id)
    click.echo(json.dumps({"erased": counts}))
    from hmem.localdb import TX_LOG_SETTINGS

    settings = ", ".join(f"{k}={v}" for k, v in TX_LOG_SETTINGS.items())
    click.echo(
        "note: Neo4j keeps the erased text in its transaction logs until they rotate and a "
        f"checkpoint prunes them. hmem's local server sets {settings}; set the same on your "
        "own Neo4j (docs/write-path.md, 'Erasure on disk').",
        err=True,
    )


@main.command()
@_tenanted
@click.option("--user", "user_id", required=True)
@click.option("-k", "k", default=30, show_default=True, help="most hits")
@click.option("--budget", "token_budget", default=4000, show_default=True, help="token budget")
@click.option("--as-of", help="belief time: what was believed then (ISO-8601 with zone)")
@click.option("--as-of-event", help="world time: what was true then (ISO-8601 with zone)")
@click.option("--explain", is_flag=True, help="each hit's score parts")
@click.option("--json", "as_json", is_flag=True)
@click.argument("query")
def search(
    user_id: str,
    k: int,
    token_budget: int,
    as_of: str | None,
    as_of_event: str | None,
    explain: bool,
    as_json: bool,
    query: str,
) -> None:
    """Recall: the context block for QUERY (hybrid, temporal, no model on the read path)."""
    with _memory() as memory:
        result = memory.search(
            query,
            user_id=user_id,
            k=k,
            token_budget=token_budget,
            as_of=_when(as_of),
            as_of_event=_when(as_of_event),
        )
    if as_json:
        click.echo(result.model_dump_json(indent=2))
        return
    click.echo(result.context or "(no memories)")
    if explain:
        click.echo(
            f"\nmode {result.mode}, dense {result.strategy}, {result.tokens} tokens, "
            f"recall {result.timings.recall_ms:.1f} ms + embed {result.timings.embed_ms:.1f} ms"
        )
        for note in result.notes:
            click.echo(f"note: {note}")
        for hit in result.hits:
            parts = " ".join(f"{name} {value:.3f}" for name, value in hit.parts.items())
            click.echo(f"{hit.score:.3f}  {hit.fact.id}  {parts}")


@main.command()
@click.option("--user", "user_ids", multiple=True, required=True, help="repeatable")
@click.option("--now", help="the clock to expire against (default: now)")
def maintain(user_ids: tuple[str, ...], now: str | None) -> None:
    """Close (never erase) episodic facts unused for episodic_ttl_days (90)."""
    with _memory(embed=False) as memory:
        for user_id in user_ids:
            report = memory.maintain(user_id=user_id, now=_when(now))
            click.echo(report.model_dump_json())


@main.command()
@click.option("--batch-size", default=256, show_default=True, type=click.IntRange(1, 10_000))
def reembed(batch_size: int) -> None:
    """Move the store to the configured embedding model (HMEM_EMBED_*): every fact of
    every user embedded again, with a progress bar. Interrupted, it resumes where it
    stopped when run again; searches and writes are refused until it finishes."""
    config = _config().model_copy(update={"embed_model_check": False})
    with _memory(config) as memory:
        todo = memory.reembed_pending()
        assert memory.embedder is not None  # reembed_pending refuses a missing one
        label = f"re-embedding with {memory.embedder.model_name}"
        with click.progressbar(length=todo, label=label, file=sys.stderr) as bar:
            result = memory.reembed(batch_size=batch_size, progress=bar.update)
    click.echo(json.dumps(result))


main.add_command(bench)  # hmem/cli/bench.py


if __name__ == "__main__":
    main()
