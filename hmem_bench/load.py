"""A bounded load test of the HTTP API, on loopback only.

``python -m hmem_bench.load --clients 16 --requests 100`` starts the API (uvicorn on
127.0.0.1, a free port) against the configured Neo4j, creates a throw-away tenant and
key, seeds each client's user with a few facts, then runs N concurrent clients that
mix ``search`` and ``remember`` for a fixed number of requests each. It prints
throughput, p50/p95/max latency per operation and the error count, then erases the
users and deletes the tenant's keys. ``--url``/``--key`` aim it at a running server
instead (still loopback only).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import random
import statistics
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import httpx

__all__ = ["LoadReport", "main", "run_load"]

CITIES = ["Paris", "Lyon", "Oslo", "Bergen", "Kyoto", "Lima", "Quito", "Porto", "Riga", "Turin"]
HOBBIES = ["cello", "chess", "climbing", "pottery", "running", "sailing", "baking", "judo"]


def _loopback(url: str) -> None:
    host = urlparse(url).hostname or ""
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise SystemExit(f"refusing to load-test {host!r}: loopback only")


@dataclass
class LoadReport:
    clients: int
    requests: int
    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: int = 0
    statuses: dict[str, int] = field(default_factory=dict)

    @property
    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def summary(self) -> dict[str, Any]:
        def pct(values: list[float], q: float) -> float:
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if values else 0

        everything = [v for vs in self.latencies.values() for v in vs]
        ops = {
            op: {
                "n": len(vs),
                "p50_ms": round(pct(vs, 0.50), 2),
                "p95_ms": round(pct(vs, 0.95), 2),
                "max_ms": round(max(vs) * 1000, 2) if vs else 0,
                "mean_ms": round(statistics.fmean(vs) * 1000, 2) if vs else 0,
            }
            for op, vs in sorted(self.latencies.items())
        }
        return {
            "clients": self.clients,
            "requests": self.requests,
            "seconds": round(self.seconds, 2),
            "throughput_rps": round(self.throughput, 1),
            "p50_ms": round(pct(everything, 0.50), 2),
            "p95_ms": round(pct(everything, 0.95), 2),
            "errors": self.errors,
            "statuses": self.statuses,
            "ops": ops,
        }


async def _client(
    http: httpx.AsyncClient, user: str, n: int, search_share: float, rng: random.Random,
    report: LoadReport,
) -> None:  # fmt: skip
    for i in range(n):
        if rng.random() < search_share:
            op = "search"
            city = rng.choice(CITIES)
            call = http.post(
                f"/v1/users/{user}/search", json={"query": f"Does {user} live in {city}?"}
            )
        else:
            op = "remember"
            text = f"{user} took up {rng.choice(HOBBIES)} in {rng.choice(CITIES)}, note {i}."
            call = http.post(f"/v1/users/{user}/facts", json={"text": text})
        started = time.perf_counter()
        try:
            response = await call
            status = str(response.status_code)
            if response.status_code >= 400:
                report.errors += 1
        except httpx.HTTPError as exc:
            status = type(exc).__name__
            report.errors += 1
        report.latencies.setdefault(op, []).append(time.perf_counter() - started)
        report.statuses[status] = report.statuses.get(status, 0) + 1


async def run_load(
    url: str,
    key: str,
    *,
    clients: int = 16,
    requests: int = 100,
    search_share: float = 0.7,
    seed: int = 7,
    prefix: str = "load",
) -> tuple[LoadReport, list[str]]:
    """Run the load; returns the report and the user ids it wrote to."""
    _loopback(url)
    users = [f"{prefix}-{uuid.uuid4().hex[:8]}-{i}" for i in range(clients)]
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60, limits=limits) as http:
        for user in users:  # a few facts each, so search has something to find
            for city in CITIES[:3]:
                r = await http.post(
                    f"/v1/users/{user}/facts", json={"text": f"{user} lived in {city}."}
                )
                r.raise_for_status()
        report = LoadReport(clients=clients, requests=clients * requests, seconds=0.0)
        started = time.perf_counter()
        await asyncio.gather(
            *(
                _client(http, user, requests, search_share, random.Random(seed + i), report)  # noqa: S311
                for i, user in enumerate(users)
            )
        )
        report.seconds = time.perf_counter() - started
    return report, users


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=100, help="per client")
    parser.add_argument("--search-share", type=float, default=0.7)
    parser.add_argument("--url", help="a running API (loopback); default: start one")
    parser.add_argument("--key", help="API key for --url")
    args = parser.parse_args(argv)
    if args.clients > 256 or args.requests > 10_000:
        raise SystemExit("bounded: at most 256 clients and 10000 requests each")
    if args.url:
        if not args.key:
            raise SystemExit("--url needs --key")
        report, _ = asyncio.run(
            run_load(args.url, args.key, clients=args.clients, requests=args.requests,
                     search_share=args.search_share)
        )  # fmt: skip
        print(json.dumps(report.summary(), indent=2))
        return
    _self_served(args)


def _self_served(args: argparse.Namespace) -> None:
    import uvicorn

    from hmem.api import create_app
    from hmem.api.auth import stored_user_id
    from hmem.config import Config
    from hmem.graph.apikeys import KeyStore
    from hmem.memory import Memory

    config = Config()
    with Memory(config) as memory:
        memory.init_schema()
        keys = KeyStore(memory.store._driver, database=config.neo4j_database)
        keys.ensure_schema()
        tenant = f"load-{uuid.uuid4().hex[:8]}"
        issued = keys.create(tenant, name="load test")
        server = uvicorn.Server(
            uvicorn.Config(create_app(config), host="127.0.0.1", port=0, log_config=None,
                           access_log=False)
        )  # fmt: skip
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        users: list[str] = []
        try:
            report, users = asyncio.run(
                run_load(f"http://127.0.0.1:{port}", issued.key, clients=args.clients,
                         requests=args.requests, search_share=args.search_share)
            )  # fmt: skip
            print(json.dumps(report.summary(), indent=2))
        finally:
            server.should_exit = True
            thread.join(15)
            for user in users:
                memory.erase_user(stored_user_id(tenant, user))
            keys.delete_tenant(tenant)


if __name__ == "__main__":
    main()
