"""``hmem mcp`` as an agent host sees it, with the official MCP client over stdio.

``hmem bench mcp`` starts ``hmem mcp --user USER`` (this Python, the caller's
``HMEM_`` settings), and times: spawn to the ``initialize`` answer (the goal: at most
1 s), ``tools/list``, the first ``recall`` (the goal: no more than twice the median of
the next ones) and the next ``repeat`` recalls. ``pause_s`` seconds pass between
``initialize`` and the first ``recall``, as a host's user types the first question; 0
asks at once (then the first recall also waits for the backend's build).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

__all__ = ["measure"]

SERVER = "from hmem.cli import main; main()"


async def _run(
    user_id: str, tenant: str | None, questions: Sequence[str], repeat: int, pause_s: float
) -> dict[str, Any]:
    args = ["-c", SERVER, "mcp", "--user", user_id]
    if tenant:
        args += ["--tenant", tenant]
    params = StdioServerParameters(
        command=sys.executable,
        args=args,
        env={k: v for k, v in os.environ.items() if k.startswith(("HMEM_", "PATH", "PYTHON"))},
    )
    out: dict[str, Any] = {}
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["initialize_ms"] = round((time.perf_counter() - started) * 1000, 1)
        began = time.perf_counter()
        await session.list_tools()
        out["list_tools_ms"] = round((time.perf_counter() - began) * 1000, 1)
        await asyncio.sleep(pause_s)
        times = []
        for i in range(1 + repeat):
            began = time.perf_counter()
            result = await session.call_tool("recall", {"query": questions[i % len(questions)]})
            times.append((time.perf_counter() - began) * 1000)
            if result.is_error:
                raise RuntimeError(f"recall failed: {result.content}")
    out["first_recall_ms"] = round(times[0], 1)
    out["next_recall_median_ms"] = round(statistics.median(times[1:]), 1)
    out["first_over_median"] = round(times[0] / statistics.median(times[1:]), 2)
    return out


def measure(
    *,
    user_id: str,
    tenant: str | None,
    questions: Sequence[str],
    repeat: int = 20,
    pause_s: float = 3.0,
) -> dict[str, Any]:
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    return asyncio.run(_run(user_id, tenant, questions, repeat, pause_s))
