"""Settings and the local server's generated configuration (no server started)."""

from __future__ import annotations

import re
import shutil
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError as PydanticError

from hmem import Config
from hmem.localdb import LocalNeo4j
from hmem.localdb.install import find_java
from hmem.localdb.server import NEO4J_2026, NEO4J_VERSION, LocalNeo4jError, resolve_version


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
    assert conf["internal.cypher.use_parameter_size"] == "false"  # one plan, any list size


def test_bolt_tls_is_off_unless_asked_and_then_optional_with_a_private_key(
    tmp_path: Path,
) -> None:
    def conf(server: LocalNeo4j) -> dict[str, str]:
        return dict(line.split("=", 1) for line in server.render_conf().splitlines() if "=" in line)

    plain = LocalNeo4j(tmp_path / "p", cache_dir=tmp_path / "c")
    assert conf(plain)["server.bolt.tls_level"] == "DISABLED"
    assert not any(k.startswith("dbms.ssl.policy.bolt") for k in conf(plain))
    if shutil.which("openssl") is None:
        pytest.skip("no openssl on PATH: HMEM_NEO4J_TLS cannot make a certificate here")
    server = LocalNeo4j(tmp_path / "t", cache_dir=tmp_path / "c", tls=True)
    server.prepare()
    got = conf(server)
    assert got["server.bolt.tls_level"] == "OPTIONAL"  # bolt:// keeps working
    assert got["dbms.ssl.policy.bolt.base_directory"] == str(server.certificate_dir)
    key = server.certificate_dir / got["dbms.ssl.policy.bolt.private_key"]
    cert = server.certificate_dir / got["dbms.ssl.policy.bolt.public_certificate"]
    assert "PRIVATE KEY" in key.read_text() and "CERTIFICATE" in cert.read_text()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    made = cert.read_bytes()
    server.prepare()  # made once: a restart keeps the certificate drivers may have seen
    assert cert.read_bytes() == made


def test_generated_password_is_private_and_stable(tmp_path: Path) -> None:
    server = LocalNeo4j(tmp_path / "n", cache_dir=tmp_path / "c")
    first = server.password()
    assert re.fullmatch(r"[0-9a-f]{32}", first)  # never starts with "-" (an option to neo4j-admin)
    assert stat.S_IMODE(server.password_file.stat().st_mode) == 0o600
    assert server.password() == first
    assert not server.running()
    assert not server.stop()


def test_server_lines_and_their_java(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lts = LocalNeo4j(tmp_path / "a")
    assert lts.version == NEO4J_VERSION and not lts.calendar
    assert lts.java_majors == (17, 21) and lts.entry_point.endswith("CommunityEntryPoint")
    new = LocalNeo4j(tmp_path / "b", version="2026")
    assert new.version == NEO4J_2026 and new.calendar
    assert new.java_majors == (21, 25) and new.entry_point.endswith("Neo4jCommunity")
    assert resolve_version("2026.08.1") == "2026.08.1"
    for bad in ("4.4.0", "latest"):
        with pytest.raises(LocalNeo4jError):
            resolve_version(bad)
    # an explicit HMEM_JAVA_HOME of the wrong release is named, not passed over
    monkeypatch.setenv("HMEM_JAVA_HOME", str(tmp_path / "nojdk"))
    with pytest.raises(LocalNeo4jError, match=r"HMEM_JAVA_HOME=.*Neo4j 2026"):
        new.java()
    monkeypatch.delenv("HMEM_JAVA_HOME")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nojdk"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LocalNeo4jError, match=r"needs Java 21 or 25.*HMEM_JAVA_HOME"):
        find_java(new.java_majors, f"Neo4j {new.version}", roots=(str(tmp_path),))


def test_a_store_is_opened_only_by_its_server_line(tmp_path: Path) -> None:
    home = tmp_path / "n"
    LocalNeo4j(home).check_store()
    (home / "data" / "databases").mkdir(parents=True)
    LocalNeo4j(home).check_store()  # the same line again
    with pytest.raises(LocalNeo4jError, match=r"made by Neo4j 5\.26\.30"):
        LocalNeo4j(home, version="2026").check_store()
    (home / "neo4j-version").unlink()  # a store from before the marker is 5.26's
    with pytest.raises(LocalNeo4jError, match="another HMEM_NEO4J_HOME"):
        LocalNeo4j(home, version="2026").check_store()
