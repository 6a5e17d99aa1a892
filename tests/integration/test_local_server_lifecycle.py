"""The local Neo4j manager end to end: start, refuse a taken port, stop, restart."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hmem.localdb import LocalNeo4j, LocalNeo4jError


@pytest.mark.skipif(
    os.environ.get("HMEM_SKIP_LIFECYCLE") == "1", reason="HMEM_SKIP_LIFECYCLE=1 was set"
)
def test_start_stop_restart(tmp_path: Path) -> None:
    lines: list[str] = []
    server = LocalNeo4j(tmp_path / "neo4j", bolt_port=7717, http_port=7504, log=lines.append)
    try:
        took = server.start(timeout=240)
        assert took > 0 and server.running()
        assert server.start() == 0.0  # already running: no second process
        password = server.password()

        twin = LocalNeo4j(tmp_path / "twin", bolt_port=7717, http_port=7505, log=lines.append)
        with pytest.raises(LocalNeo4jError, match="port 7717"):
            twin.start(timeout=60)

        assert server.stop()
        assert not server.running()
        assert not server.stop()  # stopping twice is harmless

        server.start(timeout=240)  # the same home and password again
        assert server.password() == password
        assert any("ready in" in line for line in lines)
    finally:
        server.stop()
