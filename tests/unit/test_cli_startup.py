"""The command line starts fast: `hmem --help` and the commands that only read the
store import neither the HTTP app, the model SDKs nor an embedding model."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from hmem.cli import LAZY_COMMANDS, main

HEAVY = ("openai", "fastapi", "uvicorn", "mcp", "fastembed", "onnxruntime", "spacy", "neo4j")


def _imported_after(code: str) -> set[str]:
    """The top-level modules a fresh interpreter has loaded after running ``code``."""
    probe = (
        f"{code}\nimport sys\nprint('MODULES', *sorted({{m.split('.')[0] for m in sys.modules}}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(out.stdout.splitlines()[-1].split()[1:])


def test_help_imports_nothing_heavy() -> None:
    loaded = _imported_after(
        "from hmem.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert "hmem" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_reading_commands_never_import_a_model_sdk() -> None:
    """`hmem facts` / `history` / `export` build a Memory: the driver is needed, the
    OpenAI SDK and the embedding runtime are not (they load on the first model call)."""
    loaded = _imported_after("import hmem.memory")
    assert "neo4j" in loaded
    assert not loaded & {"openai", "fastembed", "onnxruntime", "fastapi", "mcp"}


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_a_lazy_commands_help_line_is_its_own(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None
    assert command.get_short_help_str(10_000) == LAZY_COMMANDS[name][2]
    assert command.name == name
