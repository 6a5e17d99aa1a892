"""The README's HTTP example runs as written (curl against a live API, demo tenant)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from hmem import Config, Memory
from hmem.demo import seed_demo
from tests.integration.test_api_fixtures import Tenant, fresh_tenant, live_server

README = Path(__file__).parents[2] / "README.md"


@pytest.fixture
def tenant(driver: Driver, memory: Memory) -> Iterator[Tenant]:
    with fresh_tenant(driver, memory, "readme") as t:
        yield t


def test_http_tour_runs(config: Config, tenant: Tenant, memory: Memory, tmp_path: Path) -> None:
    if shutil.which("curl") is None:
        pytest.skip("no curl")
    section = README.read_text().split("### HTTP", 1)[1]
    [script] = re.findall(r"```bash\n(.*?)```", section, flags=re.S)[:1]
    user = tenant.user("maya")
    seed_demo(memory, tenant.stored(user))
    queue = config.model_copy(update={"queue_path": tmp_path / "queue.sqlite3"})
    with live_server(queue) as server:
        script = re.sub(r"^KEY=.*$", f"KEY={tenant.key}", script, flags=re.M)
        script = script.replace(
            "http://127.0.0.1:8000/v1/users/maya", f"{server.url}/v1/users/{user}"
        )
        lines = script.replace("\\\n", " ").replace("\n", "\necho\n")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", lines],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
    now, then, found, wrote = [json.loads(line) for line in done.stdout.split("\n") if line]
    assert "Maya moved from London to Paris in March 2026." in {f["text"] for f in now["items"]}
    assert "Maya lives in London." in {f["text"] for f in then["items"]}
    assert any("London" in h["fact"]["text"] for h in found["hits"])
    assert len(wrote["added"]) == 1
