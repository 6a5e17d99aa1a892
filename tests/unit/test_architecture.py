"""Package layering and the public surface."""

from __future__ import annotations

import ast
from pathlib import Path

import hmem

PKG = Path(hmem.__file__).parent


def _imports(folder: Path) -> set[str]:
    found: set[str] = set()
    for source in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return found


def test_graph_never_imports_extract_or_api() -> None:
    bad = {m for m in _imports(PKG / "graph") if m.startswith(("hmem.extract", "hmem.api"))}
    assert not bad


def test_extract_never_imports_api() -> None:
    if (PKG / "extract").is_dir():
        assert not {m for m in _imports(PKG / "extract") if m.startswith("hmem.api")}


def test_exported_members_are_sorted_and_real() -> None:
    assert hmem.__all__ == sorted(hmem.__all__)
    for name in hmem.__all__:
        assert hasattr(hmem, name), name
    public = {n for n in dir(hmem) if not n.startswith("_") and n[0].isupper()}
    assert public <= set(hmem.__all__)
