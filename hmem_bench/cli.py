"""`hmem bench …`: the benchmark commands (the `bench` extra). hmem/cli.py only loads
this group when `hmem bench` runs, so the product never imports the benchmark."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from hmem.cli._common import load_config as _config
from hmem.cli._common import open_memory


@click.group()
def bench() -> None:
    """Benchmarks: LoCoMo retrieval, BEAM updates, speed and cost, graphiti side by side."""


@bench.command("reliability")
@click.option("--tries", default=5, show_default=True, help="erasure races of each kind")
@click.option("--clients", default=64, show_default=True, help="concurrent API clients")
@click.option("--writes", default=4, show_default=True, help="writes per client")
@click.option("--out", type=click.Path(), help="also write the figures here (JSON)")
def bench_reliability(tries: int, clients: int, writes: int, out: str | None) -> None:
    """Erasure races, Neo4j and worker kill -9, an outage, load, bad inputs: with counts.
    Runs on a Neo4j of its own (free ports, temporary home), never on yours."""
    from hmem_bench.reliability import run

    results = run(_config(), tries=tries, clients=clients, writes=writes)
    text = json.dumps(results, indent=2)
    click.echo(text)
    if out:
        Path(out).write_text(text + "\n")


@bench.command("faults")
@click.option("--clients", default=16, show_default=True, help="concurrent API clients")
@click.option("--seconds", default=60.0, show_default=True, help="how long new writes start")
@click.option("--queue-url", help="the shared queue: redis://:<password>@host:port/db")
@click.option(
    "--faults",
    default="api,worker,neo4j",
    show_default=True,
    help="what is killed with SIGKILL (and restarted), at spaced times",
)
@click.option("--bolt-port", type=int, help="the bench's own Neo4j (default: a free port)")
@click.option("--http-port", type=int, help="its HTTP port (default: a free port)")
@click.option("--api-port", type=int, help="hmem serve's port (default: a free port)")
@click.option("--out", type=click.Path(), help="also write the figures here (JSON)")
def bench_faults(
    clients: int,
    seconds: float,
    queue_url: str | None,
    faults: str,
    bolt_port: int | None,
    http_port: int | None,
    api_port: int | None,
    out: str | None,
) -> None:
    """Load over HTTP (writes with Idempotency-Key, retried as a client would) while the
    API, a worker and Neo4j are killed with SIGKILL: accepted = stored, duplicates,
    answers past the request bound. Runs on a Neo4j of its own, never on yours."""
    from hmem_bench.faults import run

    chosen = tuple(f.strip() for f in faults.split(",") if f.strip())
    unknown = set(chosen) - {"api", "worker", "neo4j"}
    if unknown:
        raise click.BadParameter(f"unknown fault(s): {', '.join(sorted(unknown))}")
    results = run(
        _config(),
        clients=clients,
        seconds=seconds,
        queue_url=queue_url,
        faults=chosen,
        bolt_port=bolt_port,
        http_port=http_port,
        api_port=api_port,
    )
    text = json.dumps(results, indent=2)
    click.echo(text)
    if out:
        Path(out).write_text(text + "\n")


@bench.command("run")
@click.option(
    "--data",
    "data_dir",
    default="../shared/data",
    show_default=True,
    help="folder with locomo/locomo_dev.jsonl and beam/beam_100k_dev.jsonl",
)
@click.option(
    "--locomo", "locomo_path", help="LoCoMo: the converted jsonl or the original locomo10.json"
)
@click.option("--beam", "beam_path", help="BEAM jsonl (default: <data>/beam/…_dev.jsonl)")
@click.option("--model-dir", default="../shared/models/all-MiniLM-L6-v2-onnx", show_default=True)
@click.option("--out", default="bench-results", show_default=True)
@click.option("--no-graphiti", is_flag=True, help="skip graphiti-core side by side")
@click.option("--no-latency", is_flag=True, help="skip recall latency at scale")
@click.option("--latency-sizes", default="10000,100000,1000000", show_default=True)
@click.option("--latency-queries", default=200, show_default=True)
@click.option(
    "--storage-facts",
    default=6000,
    show_default=True,
    help="facts written for bytes per fact (hmem_bench.storage, own server; 0 skips)",
)
@click.option("--add-sessions", default=5, show_default=True, help="sessions to count calls on")
@click.option("--max-questions", type=int, help="per conversation (a quick run)")
@click.option("--graphiti-questions", default=40, show_default=True, help="per conversation")
@click.option(
    "--no-plain-text", is_flag=True, help="skip BEAM/LoCoMo written as text only (infer off/on)"
)
@click.option(
    "--no-search-latency", is_flag=True, help="skip search() per shape (hmem_bench.latency)"
)
@click.option(
    "--search-shapes", help="search() shapes, e.g. facts,full (default: hmem_bench.latency's)"
)
@click.option("--search-questions", default=150, show_default=True, help="per search shape")
@click.option("--no-writes", is_flag=True, help="skip remember_many vs bare rows, add() overhead")
@click.option("--write-batches", default=20, show_default=True, help="remember_many batches of 100")
@click.option("--write-sessions", default=100, show_default=True, help="add() overhead sessions")
def bench_run(
    data_dir: str,
    locomo_path: str | None,
    beam_path: str | None,
    model_dir: str,
    out: str,
    no_graphiti: bool,
    no_latency: bool,
    latency_sizes: str,
    latency_queries: int,
    storage_facts: int,
    add_sessions: int,
    max_questions: int | None,
    graphiti_questions: int,
    no_plain_text: bool,
    no_search_latency: bool,
    search_shapes: str | None,
    search_questions: int,
    no_writes: bool,
    write_batches: int,
    write_sessions: int,
) -> None:
    """Run every benchmark and write results.json, report.md and PNG plots to --out."""
    from pathlib import Path

    from hmem_bench.runner import RunOptions, run

    data = Path(data_dir)
    options = RunOptions(
        locomo=Path(locomo_path) if locomo_path else data / "locomo" / "locomo_dev.jsonl",
        beam=Path(beam_path) if beam_path else data / "beam" / "beam_100k_dev.jsonl",
        out=Path(out),
        model_dir=Path(model_dir),
        graphiti=not no_graphiti,
        latency=not no_latency,
        latency_sizes=latency_sizes,
        latency_queries=latency_queries,
        storage_facts=storage_facts,
        add_sessions=add_sessions,
        max_questions=max_questions,
        graphiti_questions=graphiti_questions,
        plain_text=not no_plain_text,
        search_latency=not no_search_latency,
        search_shapes=search_shapes,
        search_questions=search_questions,
        writes=not no_writes,
        write_batches=write_batches,
        write_sessions=write_sessions,
        command="hmem bench run " + " ".join(sys.argv[3:])
        if len(sys.argv) > 3
        else "hmem bench run",
    )
    run(_config(), options)
    click.echo(f"report: {Path(out) / 'report.md'}")


@bench.command("first-search")
@click.option("--url", default="http://127.0.0.1:8000", show_default=True, help="a running API")
@click.option("--key", envvar="HMEM_API_KEY", help="API key (or HMEM_API_KEY)")
@click.option("--user", "user_id", default="maya", show_default=True)
@click.option("--query", default="What pets does Maya have?", show_default=True)
@click.option("--repeat", default=20, show_default=True, help="warm searches after the first")
@click.option("--ready-timeout", default=600.0, show_default=True, help="seconds")
@click.option(
    "--python",
    "python_tenant",
    help="no API: a Memory of this process, TENANT:USER, right after Memory.warm_up "
    "(then new question shapes too); e.g. --python demo",
)
def bench_first_search(
    url: str,
    key: str | None,
    user_id: str,
    query: str,
    repeat: int,
    ready_timeout: float,
    python_tenant: str | None,
) -> None:
    """The first search after start vs the median of the next ones (JSON on stdout).
    Start right after the API (e.g. `make demo`, which prints the key): it waits for
    /readyz, then searches 1 + --repeat times and shows the first search's top hits.
    With --python: the same for Memory.search after Memory.warm_up, and questions of
    new shapes."""
    if python_tenant is not None:
        from hmem_bench.first_search import measure_python

        stored = f"{python_tenant}:{user_id}" if python_tenant else user_id
        started = time.perf_counter()
        with open_memory(_config()) as memory:
            memory.warm_up()
            ready_s = time.perf_counter() - started
            found = measure_python(
                lambda q: memory.search(q, user_id=stored), query=query, repeat=repeat
            )
        click.echo(json.dumps({"ready_s": round(ready_s, 1), **found}, indent=2))
        return
    if not key:
        raise click.UsageError("--key (or HMEM_API_KEY) is required without --python")
    import httpx

    from hmem_bench.first_search import measure

    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=url, headers=headers, timeout=120.0) as client:
        result = measure(
            client, user_id=user_id, query=query, repeat=repeat, ready_timeout_s=ready_timeout
        )
    click.echo(json.dumps(result, indent=2))


@bench.command("http")
@click.option("--url", default="http://127.0.0.1:8000", show_default=True, help="a running API")
@click.option("--key", envvar="HMEM_API_KEY", required=True, help="API key (or HMEM_API_KEY)")
@click.option("--user", "user_id", default="maya", show_default=True)
@click.option(
    "--tenant",
    default="demo",
    show_default=True,
    help="the key's tenant: search() reads the stored user TENANT:USER ('' skips search())",
)
@click.option("-n", "n", default=100, show_default=True, help="searches one at a time, each way")
@click.option("--clients", default=16, show_default=True, help="concurrent callers (0 skips)")
@click.option("--seconds", default=15.0, show_default=True, help="length of the load")
@click.option(
    "--pid", "pids", multiple=True, type=int, help="report this process's CPU per request"
)
def bench_http(
    url: str,
    key: str,
    user_id: str,
    tenant: str,
    n: int,
    clients: int,
    seconds: float,
    pids: tuple[int, ...],
) -> None:
    """HTTP /search vs Memory.search on the same store (p50/p95 one at a time), then
    --clients concurrent callers: req/s, p50, p95 (JSON on stdout). Run it beside a
    running API (e.g. `make demo`) with the same HMEM_ settings."""
    from hmem_bench.http_load import measure

    if not tenant:
        result = measure(url, key, user_id=user_id, search=None, n=n, clients=clients,
                         seconds=seconds, pids=pids)  # fmt: skip
    else:
        with open_memory(_config()) as memory:
            result = measure(
                url,
                key,
                user_id=user_id,
                search=lambda q: memory.search(q, user_id=f"{tenant}:{user_id}"),
                n=n,
                clients=clients,
                seconds=seconds,
                pids=pids,
            )
    click.echo(json.dumps(result, indent=2))


@bench.command("mcp")
@click.option("--user", "user_id", default="maya", show_default=True)
@click.option("--tenant", default="demo", show_default=True, help="as `hmem mcp --tenant`")
@click.option("--repeat", default=20, show_default=True, help="recalls after the first")
@click.option("--pause", default=3.0, show_default=True, help="seconds before the first recall")
def bench_mcp(user_id: str, tenant: str, repeat: int, pause: float) -> None:
    """`hmem mcp` through the MCP client over stdio: initialize, tools/list, the first
    recall and the median of the next (JSON on stdout)."""
    from hmem_bench.http_load import QUESTIONS
    from hmem_bench.mcp_start import measure

    result = measure(
        user_id=user_id, tenant=tenant or None, questions=QUESTIONS, repeat=repeat, pause_s=pause
    )
    click.echo(json.dumps(result, indent=2))


@bench.command("ner")
@click.option(
    "--locomo",
    "locomo_path",
    default="../shared/data/locomo/locomo_dev.jsonl",
    show_default=True,
    help="LoCoMo: the converted jsonl or the original locomo10.json",
)
@click.option(
    "--sessions-out",
    type=click.Path(file_okay=False, path_type=Path),
    help="also write each conversation as an `hmem import` JSONL file here",
)
def bench_ner(locomo_path: str, sessions_out: Path | None) -> None:
    """spaCy entities on the LoCoMo turns: entities per fact, ms per 1,000 facts, for
    the trained pipeline and the blank + known-names fallback (JSON on stdout)."""
    from hmem_bench.data import load_locomo
    from hmem_bench.ner import measure, write_sessions

    convs = load_locomo(locomo_path)
    if sessions_out is not None:
        sessions_out.mkdir(parents=True, exist_ok=True)
        for conv in convs:
            write_sessions(conv, sessions_out / f"{conv.conversation_id}.jsonl")
    click.echo(json.dumps({"data": locomo_path, **measure(convs)}, indent=2))
