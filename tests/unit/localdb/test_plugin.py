"""Building hmem's Neo4j plugin: compiled against the server's own jars, cached by content."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from hmem.localdb import LocalNeo4j
from hmem.localdb.plugin import build_plugin, install, javac_for


@pytest.fixture(scope="module")
def toolchain() -> tuple[str, Path, str]:
    server = LocalNeo4j(Path(".hmem/unused"))
    if not server.fetched():
        pytest.skip("the Neo4j jars are not fetched yet (`hmem neo4j start` fetches them)")
    javac = javac_for(server.java())
    if javac is None:
        pytest.skip("no javac beside the Java runtime")
    return javac, server.lib_dir, server.version


@pytest.mark.slow  # compiles the procedure with javac against the Neo4j jars (~20 s)
def test_the_jar_holds_the_procedure_and_is_cached(
    toolchain: tuple[str, Path, str], tmp_path: Path
) -> None:
    javac, lib, version = toolchain
    jar = build_plugin(javac, lib, tmp_path, version)
    with zipfile.ZipFile(jar) as archive:
        assert "hmem/neo4j/VectorTopK.class" in archive.namelist()
    stamp = jar.stat().st_mtime_ns
    assert build_plugin(javac, lib, tmp_path, version) == jar
    assert jar.stat().st_mtime_ns == stamp
    other = build_plugin(javac, lib, tmp_path, "0.0.0-other")
    assert other != jar  # the key includes the Neo4j version


def test_install_replaces_older_builds(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "hmem-neo4j-000000000000.jar").write_bytes(b"old")
    (plugins / "apoc.jar").write_bytes(b"someone else's")
    jar = tmp_path / "hmem-neo4j-111111111111.jar"
    jar.write_bytes(b"new")
    install(jar, plugins)
    assert sorted(p.name for p in plugins.iterdir()) == ["apoc.jar", "hmem-neo4j-111111111111.jar"]


def test_a_runtime_without_javac_is_recognised(tmp_path: Path) -> None:
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("#!/bin/sh\n")
    assert javac_for(str(java)) is None
    (java.parent / "javac").write_text("#!/bin/sh\n")
    assert javac_for(str(java)) == str(java.parent / "javac")


def test_cli_writes_the_jar_for_a_server_of_your_own(
    toolchain: tuple[str, Path, str], tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from hmem.cli import main

    out = tmp_path / "plugins"
    result = CliRunner().invoke(main, ["neo4j", "plugin", "--out", str(out)])
    assert result.exit_code == 0, result.output
    [jar] = out.glob("hmem-neo4j-*.jar")
    assert str(jar) in result.output and "hmem.vector.topk" in result.output
