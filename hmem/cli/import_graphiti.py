"""``hmem import graphiti``: one sync, or ``--follow`` to keep a running graphiti
mirrored."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import click

from hmem.cli._common import load_config
from hmem.config import Config
from hmem.errors import RetryableError, ValidationError
from hmem.graph.apikeys import KeyStore, check_tenant, check_user_name
from hmem.importers.graphiti import PASSWORD_ENV
from hmem.memory import NO_EMBEDDER, Memory, make_driver

__all__ = ["import_graphiti_cmd"]


def _run_once(memory: Memory, poll: bool, verbose: bool, **options: Any) -> None:
    """One sync with a progress bar, its summary as one JSON line; a ``--follow``
    ``poll`` has no bar, and no line when the group had not changed."""
    from hmem.importers.graphiti import import_graphiti

    bar: Any = None

    def advance(n: int) -> None:
        if bar is not None:
            bar.update(n)

    def planned(n: int) -> None:
        nonlocal bar
        if n and memory.embedder is None:  # said once the source answered, not before
            click.echo(
                "note: no embedding model, so the imported facts get no vectors (search is "
                f"lexical + entity until `hmem reembed`): {NO_EMBEDDER}",
                err=True,
            )
        if not poll and n:
            bar = click.progressbar(length=n, label="importing", file=sys.stderr).__enter__()

    try:
        summary = import_graphiti(
            memory,
            on_plan=planned,
            progress=advance,
            **options,
        )
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if summary.unchanged and poll:
        return
    if verbose:
        for skip in summary.skipped:
            click.echo(f"skipped edge {skip['uuid']}: {skip['reason']}", err=True)
    click.echo(json.dumps(summary.as_dict()))


def _target(
    config: Config, user: str, tenant: str | None, *, named: bool, no_tenant: bool = False
) -> str:
    """The stored user id to import into: ``user`` checked as the API checks a user
    name, under ``tenant`` (``tenant:user``). A store with API keys serves tenants:
    there ``--tenant`` is required, so no group id lands in a tenant by its spelling,
    unless ``--no-tenant`` says the user is one of embedded code's (no tenant)."""
    if tenant is not None and no_tenant:
        raise click.UsageError("--tenant and --no-tenant exclude each other")
    try:
        check_user_name(user)
        if tenant is not None:
            check_tenant(tenant)
    except ValidationError as exc:
        hint = "" if named else " (the group id is the default user: pass --user)"
        raise click.BadParameter(f"{exc}{hint}") from None
    if tenant is None and not no_tenant:
        driver = make_driver(config)
        try:
            tenants = {k.tenant for k in KeyStore(driver, database=config.neo4j_database).list()}
        finally:
            driver.close()
        if tenants:
            raise click.UsageError(
                f"this store serves {len(tenants)} API tenant(s): pass --tenant, and the "
                "user as the API names it (--user); or --no-tenant for a user of embedded "
                "code (no tenant)"
            )
    if tenant is None:  # no API tenants here, or --no-tenant: embedded code's user
        return user
    return f"{tenant}:{user}"  # as the API stores it (hmem.api.auth.stored_user_id)


@click.command("graphiti")
@click.option("--group-id", required=True, help="the Graphiti group to import")
@click.option(
    "--user",
    "user_id",
    help="the user to import into, named as the API names users (letters, digits, . _ @ -; "
    "default: the group id, when it is such a name)",
)
@click.option(
    "--tenant",
    help="the API tenant the user belongs to (stored as <tenant>:<user>); required when "
    "the store has API keys, so a group never lands in a tenant by its name",
)
@click.option(
    "--no-tenant",
    is_flag=True,
    help="import into a user of no tenant (as embedded code names it) on a store that "
    "also serves API tenants",
)
@click.option("--uri", help="Bolt URI of Graphiti's Neo4j (default: hmem's own, own credentials)")
@click.option("--neo4j-user", help="its user (with --uri; default neo4j)")
@click.option(
    "--password-env",
    default=PASSWORD_ENV,
    show_default=True,
    help="variable holding its password (with --uri only)",
)
@click.option("--database", help="its database (default: neo4j, or HMEM_NEO4J_DATABASE)")
@click.option("--batch", default=200, show_default=True, help="facts per transaction")
@click.option("--follow", is_flag=True, help="keep syncing: poll the group every --interval")
@click.option("--interval", default=60.0, show_default=True, help="seconds between polls")
@click.option("--runs", default=0, show_default=True, help="with --follow: stop after N polls")
@click.option(
    "--full",
    is_flag=True,
    help="compare the whole group with hmem even when its watermark has not moved",
)
@click.option("--verbose", "-v", is_flag=True, help="one line per skipped edge on stderr")
def import_graphiti_cmd(
    group_id: str,
    user_id: str | None,
    tenant: str | None,
    no_tenant: bool,
    uri: str | None,
    neo4j_user: str | None,
    password_env: str,
    database: str | None,
    batch: int,
    follow: bool,
    interval: float,
    runs: int,
    full: bool,
    verbose: bool,
) -> None:
    """Import a Graphiti graph, or bring an imported one up to date (needs
    hmem[graphiti]): edges become facts with their windows, entity nodes entities,
    episodes episodes; what graphiti expired since the last run is closed with its
    times, with SUPERSEDES where the invalidating edge is known. A group whose
    watermark has not moved since the last run is not read again (--full compares it
    anyway). The summary (one JSON line per run) counts what changed in hmem."""
    config = load_config()
    options: dict[str, Any] = {
        "group_id": group_id,
        "user_id": _target(
            config, user_id or group_id, tenant, named=user_id is not None, no_tenant=no_tenant
        ),
        "uri": uri,
        "user": neo4j_user,
        "password": os.environ.get(password_env) if uri is not None else None,
        "password_env": password_env,
        "database": database,
        "batch": batch,
        "if_changed": not full,
    }
    with Memory(config) as memory:
        _run_once(memory, False, verbose, **options)
        polls = 0
        try:
            while follow and (runs <= 0 or polls < runs):
                time.sleep(interval)
                polls += 1
                try:
                    _run_once(memory, True, verbose, **options)
                except RetryableError as exc:  # graphiti's server restarting: poll again
                    click.echo(
                        f"{type(exc).__name__}: {exc}; next poll in {interval:g} s", err=True
                    )
        except KeyboardInterrupt:
            pass
