"""Bytes per fact in the Neo4j store, measured on a fresh local server.

    python -m hmem_bench.storage --facts 20000            # own server on 7853/7854

How: wipe the server's data, apply hmem's schema, stop the server (a clean shutdown
checkpoints) and sum the database's files: the baseline. Start it, write ``--facts``
facts through ``Memory.import_facts`` (LoCoMo's observations as texts, cycled over as
many users as needed, each with its speakers as entities and a random 384-d unit vector:
a float32 vector takes the same bytes whatever its values), stop it again and sum the
files. Bytes per fact = growth / facts, split by store file and by index (each index's
folder is named by its id, mapped to its name with SHOW INDEXES). The transaction logs
are reported apart: Neo4j prunes them (``db.tx_log.rotation.retention_policy``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from hmem.config import Config
from hmem.localdb import LocalNeo4j, stop_on_signals
from hmem.memory import Memory
from hmem.models import EntityRef, FactDraft
from hmem_bench.data import load_locomo
from hmem_bench.locomo import SETTINGS, build_items
from hmem_bench.queries import query

__all__ = ["BOLT_PORT", "HOME", "HTTP_PORT", "main", "measure"]

# The server this benchmark starts (and wipes) unless told otherwise; hmem bench run uses it.
HOME = Path(".hmem/neo4j-storage")
BOLT_PORT = 7853
HTTP_PORT = 7854


def _files(database_dir: Path, index_names: dict[str, str]) -> Counter[str]:
    """Bytes per part of one database folder: store files by name, indexes by name."""
    parts: Counter[str] = Counter()
    for path in database_dir.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(database_dir).parts
        if rel[0] == "schema" and len(rel) > 3 and rel[1] == "index":
            name = index_names.get(rel[3], f"index {rel[3]}")
            parts[f"index {name} ({rel[2]})"] += path.stat().st_size
        elif rel[0].startswith("neostore"):
            store = rel[0].removeprefix("neostore.").removesuffix(".id")
            parts[f"store {store or 'neostore'}"] += path.stat().st_size
        else:
            parts[f"other {rel[0]}"] += path.stat().st_size
    return parts


def _drafts(locomo: Path, facts: int, dim: int, seed: int = 7) -> list[tuple[str, FactDraft]]:
    rng = np.random.default_rng(seed)
    conversations = load_locomo(locomo)
    items = [
        (c, i) for c in conversations for i in build_items(c, SETTINGS[0])
    ]  # observations only: the facts an extractor would write
    dates = {(c.conversation_id, s.session_id): s.date for c in conversations for s in c.sessions}
    out: list[tuple[str, FactDraft]] = []
    copy = 0
    while len(out) < facts:
        for conv, item in items:
            if len(out) >= facts:
                break
            vector = rng.standard_normal(dim)
            vector /= np.linalg.norm(vector)
            date = dates[(conv.conversation_id, item.session)] + timedelta(minutes=copy)
            out.append(
                (
                    f"bench-bytes-{copy}-{conv.conversation_id}",
                    FactDraft(
                        text=item.text,
                        category=item.category,
                        valid_from=date,
                        known_from=date,
                        entities=[EntityRef(name=n, type="person") for n in item.entities],
                        embedding=[float(x) for x in vector],
                        source="bench",
                    ),
                )
            )
        copy += 1
    return out


def measure(server: LocalNeo4j, locomo: Path, facts: int, config: Config) -> dict[str, Any]:
    """Bytes per fact of ``facts`` LoCoMo observations (``locomo``: its jsonl or the
    original json) written on ``server``, whose data is wiped first."""
    server.stop()
    shutil.rmtree(server.home / "data", ignore_errors=True)
    server.start(timeout=300)
    settings = Config(
        **{
            **config.model_dump(),
            "neo4j_uri": server.bolt_uri,
            "neo4j_password": server.password(),
            "embed_provider": "none",
        }
    )
    database_dir = server.home / "data" / "databases" / settings.neo4j_database
    with Memory(settings) as memory:
        memory.init_schema()
        records, _, _ = memory._driver.execute_query(query("index_ids"))
        index_names = {str(r["id"]): r["name"] for r in records}
    server.stop()
    before = _files(database_dir, index_names)
    server.start(timeout=300)
    by_user: dict[str, list[FactDraft]] = {}
    for user, draft in _drafts(locomo, facts, settings.embedding_dim):
        by_user.setdefault(user, []).append(draft)
    written = 0
    with Memory(settings) as memory:
        for user, drafts in by_user.items():
            written += len(memory.import_facts(drafts, user_id=user).added)
            print(f"\r  written {written:,}/{facts:,} facts", end="", file=sys.stderr)
        print(file=sys.stderr)
        records, _, _ = memory._driver.execute_query(query("store_counts"))
        counts = records[0].data()
    server.stop()
    after = _files(database_dir, index_names)
    growth = {k: after[k] - before.get(k, 0) for k in after}
    tx_logs = sum(
        p.stat().st_size
        for p in (server.home / "data" / "transactions").rglob("*")
        if p.is_file() and settings.neo4j_database in p.parts
    )
    n = counts["facts"]
    return {
        "facts": n,
        "nodes": counts["nodes"],
        "relationships": counts["rels"],
        "bytes_per_fact": sum(growth.values()) / n,
        "by_part_per_fact": {
            k: round(v / n, 1) for k, v in sorted(growth.items(), key=lambda kv: -kv[1]) if v
        },
        "tx_log_bytes_per_fact": tx_logs / n,
        "store_bytes_before": sum(before.values()),
        "store_bytes_after": sum(after.values()),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m hmem_bench.storage", description=__doc__)
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--home", default=str(HOME))
    parser.add_argument("--bolt-port", type=int, default=BOLT_PORT)
    parser.add_argument("--http-port", type=int, default=HTTP_PORT)
    parser.add_argument("--keep", action="store_true", help="leave the server running")
    args = parser.parse_args(argv)
    server = LocalNeo4j(Path(args.home), bolt_port=args.bolt_port, http_port=args.http_port)
    try:
        locomo = Path(args.data) / "locomo" / "locomo_dev.jsonl"
        out = measure(server, locomo, args.facts, Config())
    finally:
        if not args.keep:
            server.stop()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    with stop_on_signals():
        main()
