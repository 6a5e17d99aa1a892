"""scripts/bootstrap (what `make demo` runs) installs only the .venv: no system package
unless `--test` (what scripts/test runs) asks for the browser and compose CLI the tests
drive (issue 49 item 5). The real script runs in a copy of the checkout whose .venv is
already made, with a PATH of its own: apt-get there only records that it was called."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
TOOLS = ("bash", "sha256sum", "cut", "cat", "id", "dirname")


def _checkout(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    tree = tmp_path / "hmem"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "bootstrap", tree / "scripts" / "bootstrap")
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    venv = tree / ".venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text("#!/bin/sh\nexit 0\n")
    python.chmod(0o755)
    digest = hashlib.sha256((tree / "pyproject.toml").read_bytes()).hexdigest()
    (venv / ".hmem-installed").write_text(digest + "\n")  # installed: no pip run
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"no {tool} on this machine")
        (bin_dir / tool).symlink_to(found)
    calls = tmp_path / "apt-calls"
    apt = bin_dir / "apt-get"
    apt.write_text(f'#!{shutil.which("bash")}\necho "$*" >>{calls}\n')
    apt.chmod(0o755)
    return tree, {"PATH": str(bin_dir), "HOME": str(tmp_path)}, calls


def test_make_demos_bootstrap_installs_no_system_package(tmp_path: Path) -> None:
    tree, env, calls = _checkout(tmp_path)
    done = subprocess.run(
        ["bash", "scripts/bootstrap"], cwd=tree, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert not calls.exists(), calls.read_text()
    assert "installing" not in done.stderr


def test_the_tests_bootstrap_asks_apt_for_chromium_and_compose_as_root(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("scripts/bootstrap --test installs with apt only as root")
    tree, env, calls = _checkout(tmp_path)
    done = subprocess.run(
        ["bash", "scripts/bootstrap", "--test"], cwd=tree, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    asked = calls.read_text()
    assert "install -y -qq chromium" in asked and "install -y -qq docker-compose" in asked
