"""Settings and the local server's generated configuration (no server started)."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError as PydanticError

from hmem import Config
from hmem.localdb import LocalNeo4j


def test_config_reads_prefixed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HMEM_NEO4J_URI", "bolt://127.0.0.1:7999")
    monkeypatch.setenv("HMEM_EMBEDDING_DIM", "256")
    config = Config()
    assert config.neo4j_uri == "bolt://127.0.0.1:7999"
    assert config.embedding_dim == 256


def test_config_refuses_bad_values() -> None:
    with pytest.raises(PydanticError, match="neo4j_uri"):
        Config(neo4j_uri="http://localhost:7474")
    with pytest.raises(PydanticError):
        Config(embedding_dim=0)
    with pytest.raises(PydanticError):
        Config(no_such_setting=1)  # type: ignore[call-arg]


def test_password_is_not_shown() -> None:
    assert "s3cret-value" not in repr(Config(neo4j_password="s3cret-value"))


def test_local_server_is_loopback_only_with_auth(tmp_path: Path) -> None:
    server = LocalNeo4j(tmp_path / "n", bolt_port=7901, http_port=7902, cache_dir=tmp_path / "c")
    conf = dict(line.split("=", 1) for line in server.render_conf().splitlines() if "=" in line)
    listen = [v for k, v in conf.items() if k.endswith("listen_address")]
    assert listen
    assert all(v.startswith("127.0.0.1") for v in listen)
    assert conf["dbms.security.auth_enabled"] == "true"
    assert conf["server.bolt.listen_address"] == "127.0.0.1:7901"
    assert conf["server.https.enabled"] == "false"


def test_generated_password_is_private_and_stable(tmp_path: Path) -> None:
    server = LocalNeo4j(tmp_path / "n", cache_dir=tmp_path / "c")
    first = server.password()
    assert re.fullmatch(r"[0-9a-f]{32}", first)  # never starts with "-" (an option to neo4j-admin)
    assert stat.S_IMODE(server.password_file.stat().st_mode) == 0o600
    assert server.password() == first
    assert not server.running()
    assert not server.stop()
