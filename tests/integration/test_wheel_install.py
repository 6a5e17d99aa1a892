"""hmem builds as a wheel and works installed from it, outside the checkout (issue 49
item 4): the wheel is built (``python -m build`` when the ``build`` package is there,
else ``pip wheel``, the same hatchling backend), installed into a fresh venv with
``pip install --no-deps``, its dependencies taken from this environment (a ``.pth``
line to our site-packages, whose editable hook for the checkout is not run), and from a
folder outside the checkout ``hmem --help`` runs and one search finds a fact: the
Cypher catalog and the inspector's files came with the wheel.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import uuid
from pathlib import Path

import pytest

from hmem import Memory
from hmem.memory import resolve_password

ROOT = Path(__file__).parents[2]

pytestmark = pytest.mark.slow


def _build(out: Path) -> Path:
    if importlib.util.find_spec("build") is not None:
        argv = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)]
    else:
        argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(ROOT)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 and "hatchling" in done.stderr and "No matching" in done.stderr:
        pytest.skip("the build backend (hatchling) cannot be fetched: no package index")
    assert done.returncode == 0, done.stderr[-3000:]
    [wheel] = out.glob("hmem-*.whl")
    return wheel


def test_the_built_wheel_installs_and_searches(memory: Memory, tmp_path: Path) -> None:
    wheel = _build(tmp_path / "dist")
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # the dependencies: this environment's site-packages, after the fresh venv's own
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["HMEM_NEO4J_PASSWORD"] = resolve_password(memory.config)  # its home is relative
    helped = subprocess.run(
        [str(venv / "bin" / "hmem"), "--help"], cwd=away, env=env,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert helped.returncode == 0, helped.stderr[-3000:]
    assert "forget" in helped.stdout and "serve" in helped.stdout

    user = f"wheel-{uuid.uuid4().hex[:10]}"
    script = (
        "import sys, hmem, pathlib\n"
        "from hmem import Config, Memory\n"
        "from hmem.api.pages import INSPECTOR_DIR\n"
        "print(pathlib.Path(hmem.__file__).resolve())\n"
        "assert (INSPECTOR_DIR / 'inspector.js').is_file()\n"
        "with Memory(Config(embed_provider='none')) as m:\n"
        "    m.remember('Wendy bakes sourdough on Sundays.', user_id=sys.argv[1])\n"
        "    print(m.search('Who bakes sourdough?', user_id=sys.argv[1]).hits[0].fact.text)\n"
    )
    try:
        searched = subprocess.run(
            [str(python), "-c", script, user], cwd=away, env=env,
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert searched.returncode == 0, searched.stderr[-3000:]
        where, text = searched.stdout.strip().splitlines()[-2:]
        assert Path(where).is_relative_to(venv.resolve()), where  # the wheel's, not ours
        assert text == "Wendy bakes sourdough on Sundays."
    finally:
        memory.erase_user(user)
