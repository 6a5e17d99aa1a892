"""docker-compose.yml is valid (checked by the compose CLI itself, no engine needed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def _compose() -> list[str] | None:
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_compose_file_is_valid_and_matches_the_local_server() -> None:
    cli = _compose()
    if cli is None:
        pytest.skip("no compose CLI (scripts/bootstrap installs Debian's docker-compose as root)")
    env = dict(
        os.environ,
        NEO4J_PASSWORD="compose-check-pw",
        HMEM_SERVER_SECRET="s" * 32,
        HMEM_REDIS_PASSWORD="r" * 32,
    )
    done = subprocess.run(
        [*cli, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rendered = done.stdout
    assert "neo4j:5.26" in rendered
    assert "127.0.0.1" in rendered  # published on loopback only, like the local server
    assert "healthcheck" in rendered
    assert "service_healthy" in rendered
    # the shared queue, a second API replica and a worker (docs/scaling.md)
    # with its password (issue 45, N4): the queue's URL carries it, the server requires it
    assert f"redis://:{'r' * 32}@redis:6379/0" in rendered and "hmem-2" in rendered
    assert "requirepass" in rendered
    assert "worker" in rendered
    missing = subprocess.run(
        [*cli, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env={k: v for k, v in env.items() if k != "NEO4J_PASSWORD"},
        check=False,
    )
    assert missing.returncode != 0  # auth is never left to a default
    no_queue_password = subprocess.run(
        [*cli, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env={k: v for k, v in env.items() if k != "HMEM_REDIS_PASSWORD"},
        check=False,
    )
    assert no_queue_password.returncode != 0  # nor the queue's


def test_compose_builds_the_plugin_and_passes_the_model_settings() -> None:
    cli = _compose()
    if cli is None:
        pytest.skip("no compose CLI (scripts/bootstrap installs Debian's docker-compose as root)")
    env = dict(
        os.environ,
        NEO4J_PASSWORD="compose-check-pw",
        HMEM_SERVER_SECRET="s" * 32,
        HMEM_REDIS_PASSWORD="r" * 32,
        HMEM_LLM_BASE_URL="http://host.docker.internal:11434/v1",
        HMEM_LLM_MODEL="llama3.1",
        HMEM_EMBED_PROVIDER="openai",
        HMEM_EMBED_MODEL="nomic-embed-text",
    )
    env.pop("HMEM_EMBED_MODEL_DIR", None)
    done = subprocess.run(
        [*cli, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rendered = done.stdout
    assert "docker/neo4j.Dockerfile" in rendered
    for value in ("http://host.docker.internal:11434/v1", "llama3.1", "nomic-embed-text"):
        assert value in rendered
    # the plugin stage compiles the same source the local server compiles
    stage = (ROOT / "docker" / "neo4j.Dockerfile").read_text()
    assert "COPY hmem/localdb/java/VectorTopK.java" in stage
    assert (ROOT / "hmem" / "localdb" / "java" / "VectorTopK.java").is_file()
    assert "/plugins/" in stage


def test_empty_variables_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compose passes unset model variables through as empty strings: they mean unset."""
    from hmem.config import Config

    monkeypatch.setenv("HMEM_LLM_BASE_URL", "")
    monkeypatch.setenv("HMEM_EMBED_MODEL_DIR", "")
    monkeypatch.setenv("HMEM_EMBED_MODEL", "")
    config = Config()
    assert (config.llm_base_url, config.embed_model_dir, config.embed_model) == (None, None, None)
