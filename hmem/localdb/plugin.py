"""hmem's Neo4j plugin: the ``hmem.vector.topk`` and ``hmem.vector.set`` procedures,
compiled from source.

One small class (``java/VectorTopK.java`` beside this file) that does the exact
per-user dense scan of the read path in one call: at 1M facts it takes the server time
of a recall from ~11 ms to ~9 ms (``docs/retrieval.md``); and on the write path stores
a vector sent as float32 bytes (``docs/write-path.md``, "Write speed"). It is optional:
without it the same work runs in plain Cypher with the same results
(``hmem.graph.search``, ``hmem.graph.store``).

The jar is compiled with the JDK's ``javac`` against the server's own jars, so it always
matches the Neo4j it runs in; it is cached by a hash of the source and the Neo4j version.
``hmem neo4j start`` installs it in the local server's ``plugins/``; for a Neo4j of your
own, ``hmem neo4j plugin --out DIR`` writes it for that server's ``plugins/`` folder.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from importlib import resources
from pathlib import Path

from hmem.errors import ConfigError
from hmem.graph.search import TOPK_PROCEDURE

__all__ = ["PROCEDURE", "PluginBuildError", "build_plugin", "install", "javac_for"]

PROCEDURE = TOPK_PROCEDURE
_SOURCE = "VectorTopK.java"
_CLASS_DIR = "hmem/neo4j"


class PluginBuildError(ConfigError):
    """The plugin's source did not compile against the server's jars."""


def _source() -> str:
    return resources.files("hmem.localdb").joinpath("java", _SOURCE).read_text(encoding="utf-8")


def javac_for(java: str) -> str | None:
    """The ``javac`` of the JDK that ``java`` belongs to (None for a runtime without one)."""
    beside = Path(java).resolve().parent / "javac"
    if beside.is_file():
        return str(beside)
    return None


def build_plugin(
    javac: str, lib_dir: Path, out_dir: Path, neo4j_version: str, release: int = 17
) -> Path:
    """Compile the plugin against ``lib_dir``'s jars into ``out_dir`` (cached by content),
    for Java ``release`` (the oldest Java that server line runs on: 17 for 5.26, 21 for
    2026.x, whose jars are Java 21 class files).

    Returns the jar's path; raises PluginBuildError with javac's message on failure.
    """
    source = _source()
    digest = hashlib.sha256(f"{neo4j_version}\n{source}".encode()).hexdigest()[:12]
    jar = out_dir / f"hmem-neo4j-{digest}.jar"
    if jar.is_file():
        return jar
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hmem-plugin-") as tmp:
        work = Path(tmp)
        (work / _SOURCE).write_text(source, encoding="utf-8")
        classes = work / "classes"
        done = subprocess.run(
            [
                javac,
                "-nowarn",
                "-encoding",
                "UTF-8",
                "--release",
                str(release),
                "-cp",
                f"{lib_dir}/*",
                "-d",
                str(classes),
                str(work / _SOURCE),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise PluginBuildError(
                f"compiling {_SOURCE} against {lib_dir} failed:\n{done.stderr.strip()}"
            )
        partial = jar.with_suffix(".tmp")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n\n")
            for path in sorted((classes / _CLASS_DIR).glob("*.class")):
                out.write(path, f"{_CLASS_DIR}/{path.name}")
        partial.replace(jar)
    return jar


def install(jar: Path, plugins_dir: Path) -> Path:
    """Put ``jar`` in ``plugins_dir`` as the only hmem plugin there (older builds removed)."""
    plugins_dir.mkdir(parents=True, exist_ok=True)
    target = plugins_dir / jar.name
    for old in plugins_dir.glob("hmem-neo4j-*.jar"):
        if old.name != jar.name:
            old.unlink()
    if not target.is_file():
        shutil.copyfile(jar, target)
    return target
