"""The steps of ``hmem bench run`` that run other benchmark modules: recall latency at
10k/100k/1M facts and ``Memory.search()`` per shape (``hmem_bench.latency``, each a
subprocess with its own Neo4j), and the write goals (``hmem_bench.write_path``).

Each adds its figures to the results and says in ``gaps`` what it skipped and why.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from hmem.config import Config

__all__ = ["LATENCY_PORT", "latency", "port_in_use", "search_latency", "writes"]

#: hmem_bench.latency's own Neo4j (its default Bolt port).
LATENCY_PORT = 7727


def _stream(command: list[str], *, timeout: float) -> tuple[int, str]:
    """Run ``command``, echoing its output lines to stderr as they come (its progress is
    the run's progress); the exit code and everything it printed. Killed after
    ``timeout`` seconds (exit code -9)."""
    lines: list[str] = []
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                print(f"  {line.rstrip()}", file=sys.stderr, flush=True)
        finally:
            timer.cancel()
            if proc.poll() is None:  # we were stopped (SIGTERM, Ctrl-C): so is the step,
                proc.terminate()  # which stops the Neo4j it started (stop_on_signals)
                try:
                    proc.wait(timeout=300)
                except subprocess.TimeoutExpired:
                    proc.kill()
        returncode = proc.wait()
    return returncode, "".join(lines)


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _latency_free(gaps: list[str], what: str) -> bool:
    """Whether hmem_bench.latency can run now (it is installed, its port is free)."""
    if importlib.util.find_spec("hmem_bench.latency") is None:
        gaps.append(f"hmem_bench.latency is not available: no {what}.")
        return False
    if port_in_use(LATENCY_PORT):
        # Its own server is busy with another run: measuring alongside it would skew
        # both, and stopping it is not ours to do.
        gaps.append(
            f"{what} skipped: port {LATENCY_PORT} (hmem_bench.latency's own Neo4j) is in use "
            "by another run; run `python -m hmem_bench.latency` alone."
        )
        return False
    return True


def latency(sizes: str, queries: int, out: dict[str, Any], gaps: list[str]) -> None:
    """Server time and search() of synthetic users at ``sizes`` facts (a fresh store,
    loaded without the vector index: every synthetic user is scanned exactly)."""
    if not _latency_free(gaps, "recall latency at 10k/100k/1M"):
        return
    print(f"recall latency at {sizes} facts (hmem_bench.latency)", file=sys.stderr)
    started = time.perf_counter()
    command = [sys.executable, "-m", "hmem_bench.latency", "--fresh", "--no-index"]
    command += ["--sizes", sizes, "--queries", str(queries), "--search-shapes", "", "--stop"]
    returncode, output = _stream(command, timeout=2400)
    out["latency"] = {
        "sizes": sizes,
        "queries": queries,
        "returncode": returncode,
        "seconds": time.perf_counter() - started,
        "output": output[-6000:],
    }
    if "1000000" not in sizes:
        gaps.append(
            "recall latency at 1M facts is not in this run: "
            "`hmem bench run --latency-sizes 10000,100000,1000000`."
        )
    if returncode != 0:
        gaps.append(f"hmem_bench.latency failed (exit {returncode}): see its output.")


def search_latency(
    folder: Path, shapes: str | None, questions: int, out: dict[str, Any], gaps: list[str]
) -> None:
    """``Memory.search()`` per shape (hmem_bench.latency_search through
    ``hmem_bench.latency --search-only --http``): p50/p95/p99 of the query embedding, the
    server time, search() and HTTP /search, the stage shares and search() / (embedding +
    server). It writes search_latency.json/.md into ``folder``; their figures go into
    the results. ``shapes``: None for the module's own default."""
    if not _latency_free(gaps, "search latency per shape"):
        return
    print("search latency per shape (hmem_bench.latency --search-only)", file=sys.stderr)
    started = time.perf_counter()
    command = [sys.executable, "-m", "hmem_bench.latency", "--search-only", "--http"]
    command += ["--search-questions", str(questions), "--search-out", str(folder), "--stop"]
    if shapes is not None:
        command += ["--search-shapes", shapes]
    before = time.time()
    returncode, output = _stream(command, timeout=3600)
    found: dict[str, Any] = {
        "returncode": returncode,
        "seconds": time.perf_counter() - started,
    }
    data, text = folder / "search_latency.json", folder / "search_latency.md"
    if data.is_file() and data.stat().st_mtime >= before:  # this run's, not an old file
        found["data"] = json.loads(data.read_text("utf-8"))
        found["text"] = _block(text.read_text("utf-8")) if text.is_file() else ""
    else:
        found["output"] = output[-6000:]
        gaps.append(f"search latency per shape wrote no figures (exit {returncode}).")
    out["search_latency"] = found


def _block(markdown: str) -> str:
    """The ``` block of search_latency.md: each shape's lines with its shares."""
    parts = markdown.split("```")
    return parts[1].strip("\n") if len(parts) >= 3 else ""


def writes(config: Config, sessions: int, batches: int, out: dict[str, Any]) -> None:
    """Issue 38's write goals (hmem_bench.write_path.writes): remember_many against the
    bare rows in each case, interleaved; add() overhead excluding the model."""
    from hmem_bench.write_path import writes as measure

    print(
        f"writes: remember_many vs bare UNWIND CREATE ({batches} batches of 100), "
        f"add() overhead ({sessions} sessions)",
        file=sys.stderr,
    )
    out["writes"] = measure(config, sessions, batches)
