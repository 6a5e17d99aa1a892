"""The ``hmem serve``, ``hmem keys`` and ``hmem mcp`` commands (registered by hmem.cli).

Heavy imports (uvicorn, the app, the MCP SDK) happen inside the commands, so the rest of
the CLI starts fast.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import click

from hmem.config import Config
from hmem.errors import HmemError

if TYPE_CHECKING:
    from neo4j import Driver

    from hmem.graph.apikeys import KeyStore
    from hmem.memory import Memory

__all__ = ["DEMO_TENANT", "keys", "mcp", "serve"]

DEMO_TENANT = "demo"
DEMO_KEY_NAME = "make demo"


def _config(**overrides: object) -> Config:
    try:
        base = Config()
        return base.model_copy(update={k: v for k, v in overrides.items() if v is not None})
    except Exception as exc:  # pydantic's error names the bad HMEM_ variable
        raise click.ClickException(f"bad configuration: {exc}") from exc


def _print_key(key: str, tenant: str, users: list[str] | None) -> None:
    reach = ", ".join(users) if users else "every user of the tenant"
    click.echo(f"API key (shown once; only its hash is stored): {key}")
    click.echo(f"  tenant {tenant!r}, reaches: {reach}")


@click.command()
@click.option("--host", help="bind address (default HMEM_API_HOST, 127.0.0.1)")
@click.option("--port", type=int, help="port (default HMEM_API_PORT, 8000)")
@click.option("--demo", is_flag=True, help="seed the Maya demo and print a demo API key")
@click.option("--init-schema/--no-init-schema", default=True, show_default=True)
def serve(host: str | None, port: int | None, demo: bool, init_schema: bool) -> None:
    """Run the HTTP API (Ctrl-C stops it). Docs at /docs, metrics at /metrics."""
    import uvicorn

    from hmem.api.app import create_app
    from hmem.api.logs import configure_logging
    from hmem.memory import Memory
    from hmem.telemetry import setup_tracing

    config = _config(api_host=host, api_port=port)
    configure_logging(json_lines=config.api_log_json)
    setup_tracing(config.otel_enabled, os.environ.get("OTEL_TRACES_EXPORTER", "otlp"))
    try:
        if init_schema or demo:
            driver, store = _store(config)
            try:
                with Memory(config, driver=driver) as memory:
                    memory.init_schema()
                    store.ensure_schema()
                    if demo:
                        _seed_demo(memory, store, config)
            finally:
                driver.close()
    except HmemError as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from exc
    base = f"http://{config.api_host}:{config.api_port}"
    click.echo(f"API:           {base}/v1   (OpenAPI docs: {base}/docs)")
    click.echo(f"Metrics:       {base}/metrics   readiness: {base}/readyz")
    click.echo(f"Neo4j Browser: http://127.0.0.1:{config.neo4j_http_port}/browser/")
    if config.api_host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"note: listening on {config.api_host}, not loopback; keys are required")
    click.echo("Ctrl-C stops the API.", err=True)
    sys.stdout.flush()
    uvicorn.run(
        create_app(config),
        host=config.api_host,
        port=config.api_port,
        log_config=None,
        access_log=False,
        server_header=False,
    )


def _seed_demo(memory: Memory, store: KeyStore, config: Config) -> None:
    from hmem.api.auth import stored_user_id
    from hmem.demo import DEMO_USER, seed_demo

    seed_demo(memory, DEMO_USER)  # for the CLI and Neo4j Browser: user 'maya'
    seed_demo(memory, stored_user_id(DEMO_TENANT, DEMO_USER))  # for the API: tenant 'demo'
    for old in store.list(DEMO_TENANT):
        if old.name == DEMO_KEY_NAME and old.revoked_at is None:
            store.revoke(old.key_id)
    issued = store.create(DEMO_TENANT, name=DEMO_KEY_NAME)
    base = f"http://{config.api_host}:{config.api_port}"
    click.echo(f"Seeded the Maya demo: user {DEMO_USER!r} (CLI, Browser) and, for the API,")
    click.echo(f"user {DEMO_USER!r} of tenant {DEMO_TENANT!r}.")
    _print_key(issued.key, DEMO_TENANT, None)
    click.echo("Try:")
    click.echo(
        f"  curl -s -H 'Authorization: Bearer {issued.key}' {base}/v1/users/{DEMO_USER}/facts"
    )


@click.group()
def keys() -> None:
    """API keys: each belongs to a tenant and may be limited to some of its users."""


def _store(config: Config | None = None) -> tuple[Driver, KeyStore]:
    from neo4j import GraphDatabase

    from hmem.graph.apikeys import KeyStore
    from hmem.memory import resolve_password

    config = config or _config()
    driver = GraphDatabase.driver(
        config.neo4j_uri,
        auth=(config.neo4j_user, resolve_password(config)),
        notifications_min_severity="OFF",
    )
    store = KeyStore(driver, database=config.neo4j_database)
    return driver, store


@keys.command("create")
@click.option("--tenant", required=True, help="lowercase letters, digits, '-'")
@click.option("--user", "users", multiple=True, help="limit the key to this user (repeat)")
@click.option("--name", default="", help="a label for humans")
def keys_create(tenant: str, users: tuple[str, ...], name: str) -> None:
    """Create a key; it is printed once and only its hash is kept."""
    driver, store = _store()
    try:
        store.ensure_schema()
        issued = store.create(tenant, user_ids=list(users) or None, name=name)
    finally:
        driver.close()
    _print_key(issued.key, tenant, list(users) or None)
    click.echo(f"  key id {issued.info.key_id} (for `hmem keys revoke`)")


@keys.command("list")
@click.option("--tenant", help="only this tenant's keys")
def keys_list(tenant: str | None) -> None:
    """Key ids, tenants and reach (never the keys or their hashes)."""
    driver, store = _store()
    try:
        found = store.list(tenant)
    finally:
        driver.close()
    for key in found:
        row = {
            "key_id": key.key_id,
            "tenant": key.tenant,
            "user_ids": list(key.user_ids) if key.user_ids is not None else None,
            "name": key.name,
            "created_at": key.created_at.isoformat(),
            "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
        }
        click.echo(json.dumps(row))


@keys.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id: str) -> None:
    """Revoke a key (running servers stop accepting it within HMEM_API_KEY_CACHE_S)."""
    driver, store = _store()
    try:
        store.revoke(key_id)
    finally:
        driver.close()
    click.echo(f"revoked {key_id}")


@click.command()
@click.option("--user", "user_id", required=True, help="the one user this server serves")
@click.option(
    "--api-url",
    help="use a running hmem API (key from $HMEM_API_KEY) instead of Neo4j directly",
)
def mcp(user_id: str, api_url: str | None) -> None:
    """An MCP server on stdio (remember / recall / history / forget) for agent hosts."""
    try:
        from hmem.mcp_server import build_server
    except ImportError as exc:  # mcp is the [mcp] extra; CrewAI's env pins mcp<2
        raise click.ClickException(
            f"hmem mcp needs the MCP SDK 2.x ({exc}): pip install 'hmem[mcp]'; where another "
            "package pins mcp<2 (CrewAI), run it from its own environment: "
            "pipx install 'hmem[mcp]'"
        ) from None

    if api_url:
        from hmem.graph.apikeys import check_user_name

        check_user_name(user_id)  # the API's own rule, refused here rather than per call
        from hmem.client import Client

        key = os.environ.get("HMEM_API_KEY")
        if not key:
            raise click.ClickException("set HMEM_API_KEY to the key for --api-url")
        backend: object = Client(api_url, api_key=key)
    else:
        from hmem.memory import Memory

        backend = Memory(_config())
    server = build_server(backend, user_id=user_id)  # type: ignore[arg-type]
    server.run("stdio")
