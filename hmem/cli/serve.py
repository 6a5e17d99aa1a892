"""The ``hmem serve``, ``hmem keys`` and ``hmem mcp`` commands (registered by hmem.cli.main).

Heavy imports (uvicorn, the app, the MCP SDK) happen inside the commands, so the rest of
the CLI starts fast.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hmem.config import Config
from hmem.errors import HmemError

if TYPE_CHECKING:
    from neo4j import Driver

    from hmem.graph.apikeys import KeyStore
    from hmem.memory import Memory

__all__ = ["keys", "mcp", "serve"]

log = logging.getLogger("hmem.mcp")


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
@click.option("--demo", is_flag=True, help="seed the Maya demo (once) and print a demo API key")
@click.option("--reset", is_flag=True, help="with --demo: write the story again, new key")
@click.option(
    "--key-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="with --demo: where the demo key is kept (default <HMEM_NEO4J_HOME>/demo-api-key)",
)
@click.option("--init-schema/--no-init-schema", default=True, show_default=True)
def serve(
    host: str | None,
    port: int | None,
    demo: bool,
    reset: bool,
    key_file: Path | None,
    init_schema: bool,
) -> None:
    """Run the HTTP API (Ctrl-C stops it). Docs at /docs, the memory inspector at
    /inspector/, metrics at /metrics."""
    import uvicorn

    from hmem.api.app import create_app
    from hmem.api.logs import configure_logging
    from hmem.memory import Memory
    from hmem.telemetry import setup_tracing

    config = _config(api_host=host, api_port=port)
    configure_logging(json_lines=config.api_log_json)
    setup_tracing(config.otel_enabled, os.environ.get("OTEL_TRACES_EXPORTER", "otlp"))
    lines: list[str] = []
    try:
        if init_schema or demo:
            driver, store = _store(config)
            try:
                with Memory(config, driver=driver) as memory:
                    memory.init_schema()
                    store.ensure_schema()
                    lines += _embed_missing(memory)
                    if demo:
                        path = key_file or config.neo4j_home / "demo-api-key"
                        lines += _seed_demo(memory, store, config, path, reset=reset)
            finally:
                driver.close()
    except HmemError as exc:
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from exc
    base = f"http://{config.api_host}:{config.api_port}"
    lines += [
        f"API:           {base}/v1   (OpenAPI docs: {base}/docs, {base}/redoc)",
        f"Inspector:     {base}/inspector/   (paste the key; works offline)",
        f"Metrics:       {base}/metrics   readiness: {base}/readyz",
        f"Neo4j Browser: http://127.0.0.1:{config.neo4j_http_port}/browser/",
    ]
    if config.api_host not in ("127.0.0.1", "localhost", "::1"):
        lines.append(f"note: listening on {config.api_host}, not loopback; keys are required")
    lines.append("Ctrl-C stops the API.")
    app = create_app(config)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.api_host,
            port=config.api_port,
            log_config=None,
            access_log=False,
            server_header=False,
        )
    )
    # The key and URLs are worth pasting only once the port answers: startup warms the
    # search path first (the embedding model, spaCy), which can take tens of seconds.
    threading.Thread(target=_announce, args=(server, app, lines), daemon=True).start()
    click.echo("Starting the API (warming up the search path)...", err=True)
    server.run()


def _announce(server: object, app: Any, lines: list[str]) -> None:
    while not getattr(server, "started", False):
        if getattr(server, "should_exit", False):
            return
        time.sleep(0.1)
    memory = getattr(app.state, "memory", None)
    dense = memory.capabilities()["dense_embeddings"] if memory is not None else "unknown"
    # Offline, "off" is the one thing that explains searches missing every paraphrase.
    click.echo("\n".join(["", "The API accepts connections.", f"Dense search:  {dense}", *lines]))
    sys.stdout.flush()


def _embed_missing(memory: Memory) -> list[str]:
    """Facts written while no embedding model was configured (an offline first `make
    demo`) get their vectors now that one is, with progress on stderr; what was done,
    for the banner. Nothing to say without a model or with every fact embedded."""
    embedder = memory.embedder
    if embedder is None:
        return []
    done = 0

    def progress(n: int) -> None:
        nonlocal done
        if not done:
            click.echo(
                f"Embedding the facts stored without a vector (written while no model was "
                f"configured) with {embedder.model_name}...",
                err=True,
            )
        done += n
        click.echo(f"  {done} embedded", err=True)

    total = memory.embed_missing(progress=progress)
    if not total:
        return []
    return [f"Embedded {total} facts stored without a vector: dense search now finds them too."]


def _seed_demo(
    memory: Memory, store: KeyStore, config: Config, key_file: Path, *, reset: bool
) -> list[str]:
    from hmem.demo import DEMO_TENANT, DEMO_USER, demo_stored_user, ensure_demo

    state = ensure_demo(memory, store, key_file, reset=reset)
    stored = demo_stored_user()
    if state.seeded:
        click.echo(f"Seeded the Maya demo: user {DEMO_USER!r} of tenant {DEMO_TENANT!r}.")
    else:
        click.echo(
            f"Kept the demo as it was: user {DEMO_USER!r} of tenant {DEMO_TENANT!r} has "
            f"{state.facts} facts (`make demo RESET=1` writes the story again)."
        )
    base = f"http://{config.api_host}:{config.api_port}"
    kept = "kept from the last run" if not state.new_key else "new"
    return [
        f"Demo API key ({kept}; also in {key_file}): {state.key}",
        f"  tenant {DEMO_TENANT!r}, every user of it. The demo user is {DEMO_USER!r} in the API",
        f"  and MCP, `--tenant {DEMO_TENANT} --user {DEMO_USER}` in the CLI, {stored!r} in Cypher.",
        "Try:",
        f"  curl -s -H 'Authorization: Bearer {state.key}' {base}/v1/users/{DEMO_USER}/facts",
    ]


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
    "--tenant",
    help="the API tenant of --user when reading Neo4j directly (demo: the demo's maya); "
    "with --api-url the key's tenant applies",
)
@click.option(
    "--api-url",
    help="use a running hmem API (key from $HMEM_API_KEY) instead of Neo4j directly",
)
def mcp(user_id: str, tenant: str | None, api_url: str | None) -> None:
    """An MCP server on stdio (remember / recall / history / forget) for agent hosts."""
    try:
        from hmem.faces.mcp_server import build_server
    except ImportError as exc:  # mcp is the [mcp] extra; CrewAI's env pins mcp<2
        raise click.ClickException(
            f"hmem mcp needs the MCP SDK 2.x ({exc}): pip install 'hmem[mcp]'; where another "
            "package pins mcp<2 (CrewAI), run it from its own environment: "
            "pipx install 'hmem[mcp]'"
        ) from None

    if tenant is not None:
        if api_url:
            raise click.BadParameter(
                "with --api-url the key decides the tenant", param_hint="--tenant"
            )
        from hmem.graph.apikeys import check_tenant, check_user_name

        try:
            user_id = f"{check_tenant(tenant)}:{check_user_name(user_id)}"
        except HmemError as exc:
            raise click.BadParameter(str(exc)) from exc
    if api_url:
        from hmem.graph.apikeys import check_user_name

        check_user_name(user_id)  # the API's own rule, refused here rather than per call
    key = os.environ.get("HMEM_API_KEY", "")
    if api_url and not key:
        raise click.ClickException("set HMEM_API_KEY to the key for --api-url")
    config = _config()

    def build() -> object:
        if api_url:
            from hmem.faces.client import Client

            return Client(api_url, api_key=key)
        from hmem.memory import Memory

        memory = Memory(config)
        try:
            # its own user's data, so the first recall costs what a later one does
            memory.warm_up(users=[user_id])
        except HmemError as exc:  # Neo4j not up yet: the tools say so when called
            # the kind only: a message may name the user or a fact (stderr is the
            # host's log, kept with the conversation's)
            log.warning("MCP warm-up skipped: %s", type(exc).__name__)
        return memory

    # The backend (driver, embedding model, spaCy, the warm-up searches) is built in a
    # thread once the handshake is answered: built beside it, its imports held the GIL
    # and `initialize` waited for them. A host asks its first question seconds later;
    # a tool called before that waits for what is left of the build.
    backend = Deferred(build, start=False)

    async def start_after_handshake(ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method != "initialize":  # notifications/initialized, or a first call
            backend.start()
        return result

    server = build_server(backend, user_id=user_id, middleware=[start_after_handshake])
    try:
        server.run("stdio")
    finally:
        backend.shutdown()


class Deferred:
    """An object built in a background thread; attribute access waits for it. A build
    that failed raises its error at the first use, where the MCP tool reports it."""

    def __init__(self, build: Callable[[], object], *, start: bool = True) -> None:
        self._done = threading.Event()
        self._value: object = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(build,), name="hmem-mcp-build", daemon=True
        )
        self._start_lock = threading.Lock()
        self._started = False
        if start:
            self.start()

    def start(self) -> None:
        """Begin the build (once; later calls do nothing)."""
        with self._start_lock:
            if self._started:
                return
            self._started = True
        self._thread.start()

    def _run(self, build: Callable[[], object]) -> None:
        try:
            self._value = build()
        except BaseException as exc:  # handed to the caller of the first tool
            self._error = exc
        finally:
            self._done.set()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # never the build's: e.g. copy's probes before __init__
            raise AttributeError(name)
        self.start()
        self._done.wait()
        if self._error is not None:
            raise self._error
        return getattr(self._value, name)

    def shutdown(self) -> None:
        """Shut down what was built, once it is (a build in flight is waited for; one
        never started is not started now)."""
        with self._start_lock:
            if not self._started:
                return
        self._done.wait()
        stop = getattr(self._value, "shutdown", None)
        if self._error is None and callable(stop):
            stop()
