"""Assemble and configure a local Neo4j: the version and the JDK it runs on, the jars,
neo4j.conf, the store's version check, the TLS certificate, hmem's procedure and the
initial password. server.py starts and stops the process."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from hmem.errors import ConfigError
from hmem.localdb.plugin import PROCEDURE, build_plugin, install, javac_for

__all__ = [
    "NEO4J_2026",
    "NEO4J_VERSION",
    "TX_LOG_SETTINGS",
    "LocalNeo4jError",
    "Neo4jHome",
    "find_java",
    "resolve_version",
]


NEO4J_VERSION = "5.26.30"  # the LTS line: the default
NEO4J_2026 = "2026.09.0"  # the newest calendar release on Maven Central (in-index filtering)
_ALIASES = {"5.26": NEO4J_VERSION, "lts": NEO4J_VERSION, "2026": NEO4J_2026}
BROWSER_VERSION = "5.24.0"
# Where JDKs live when no JAVA_HOME names one (Debian/Ubuntu packages, Temurin's
# packages and tarballs, SDKMAN, macOS).
_JAVA_ROOTS = (
    "/usr/lib/jvm",
    "/opt",
    "/opt/java",
    "/usr/local/lib/jvm",
    "~/.sdkman/candidates/java",
    "/Library/Java/JavaVirtualMachines",
)
_JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)


# What an operator sets so erased text leaves the transaction logs (hmem erase says so).
TX_LOG_SETTINGS = {
    "db.tx_log.rotation.retention_policy": "keep_none",
    "db.tx_log.rotation.size": "1M",
    "db.checkpoint.interval.time": "1m",
    "db.checkpoint.interval.tx": "10000",
}


class LocalNeo4jError(ConfigError):
    """The local server could not be assembled, started or stopped."""


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hmem"


@dataclass
class Neo4jHome:
    """One local server's home, assembled: conf/, data/, logs/, run/ and the password."""

    home: Path
    bolt_port: int = 7687
    http_port: int = 7474
    heap: str = "1g"
    pagecache: str = "512m"
    version: str = NEO4J_VERSION
    cache_dir: Path = field(default_factory=_default_cache)
    log: object = None  # a callable(str) for progress lines; stderr when None
    plugin: bool = True  # install hmem's procedure (hmem.localdb.plugin) when a javac exists
    tls: bool = False  # Bolt also over TLS (bolt+ssc://, neo4j+ssc://), self-signed

    def __post_init__(self) -> None:
        self.home = self.home.resolve()
        self.version = resolve_version(self.version)

    # -- paths --------------------------------------------------------------------------
    @property
    def lib_dir(self) -> Path:
        return self.cache_dir / f"neo4j-{self.version}" / "lib"

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "hmem-neo4j.pid"

    @property
    def version_file(self) -> Path:
        """Names the Neo4j version that created the store in data/."""
        return self.home / "neo4j-version"

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    @property
    def certificate_dir(self) -> Path:
        """The Bolt TLS key and self-signed certificate (``tls``), made at first start."""
        return self.home / "certificates" / "bolt"

    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/browser/"

    def _say(self, line: str) -> None:
        if callable(self.log):
            self.log(line)
        else:
            print(f"[neo4j] {line}", file=sys.stderr, flush=True)

    # -- jars ---------------------------------------------------------------------------
    def fetched(self) -> bool:
        return (self.lib_dir / f"neo4j-{self.version}.jar").is_file() and (
            self.lib_dir / f"neo4j-browser-{BROWSER_VERSION}.jar"
        ).is_file()

    def fetch(self) -> None:
        """Copy the server and Browser jars from Maven Central into the cache (once)."""
        if self.fetched():
            return
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalNeo4jError("Maven (mvn) is needed once to fetch the Neo4j jars")
        work = self.lib_dir.parent
        work.mkdir(parents=True, exist_ok=True)
        pom = work / "pom.xml"
        pom.write_text(resources.files("hmem.localdb").joinpath("pom.xml").read_text())
        self._say(f"fetching Neo4j {self.version} + Browser {BROWSER_VERSION} jars (once)")
        started = time.monotonic()
        done = subprocess.run(
            [
                mvn,
                "-B",
                "-q",
                "-f",
                str(pom),
                "package",
                f"-Dneo4j.version={self.version}",
                f"-Dneo4j.lib.dir={self.lib_dir}",
            ],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not self.fetched():
            tail = (done.stdout + done.stderr).strip().splitlines()[-20:]
            raise LocalNeo4jError("fetching the Neo4j jars failed:\n" + "\n".join(tail))
        jars = len(list(self.lib_dir.glob("*.jar")))
        self._say(f"{jars} jars in {self.lib_dir} ({time.monotonic() - started:.1f}s)")

    # -- java ---------------------------------------------------------------------------
    @property
    def calendar(self) -> bool:
        """True for the 2025+ calendar-versioned line (2026.x), False for 5.x."""
        return _is_calendar(self.version)

    @property
    def java_majors(self) -> tuple[int, ...]:
        """The Java feature releases this server line runs on."""
        return (21, 25) if self.calendar else (17, 21)

    @property
    def entry_point(self) -> str:
        # 5.x: CommunityEntryPoint; 2025+: Neo4jCommunity (the jar's
        # META-INF/services/org.neo4j.server.startup.EntryPoint names it)
        return (
            "org.neo4j.server.Neo4jCommunity"
            if self.calendar
            else ("org.neo4j.server.CommunityEntryPoint")
        )

    def java(self) -> str:
        """A ``java`` this server line runs on (see :func:`find_java`)."""
        return find_java(self.java_majors, f"Neo4j {self.version}")

    # -- configuration -----------------------------------------------------------------
    def password(self) -> str:
        """The server's password, generated (0600) on first use."""
        if self.password_file.is_file():
            return self.password_file.read_text().strip()
        self.home.mkdir(parents=True, exist_ok=True)
        # hex: a url-safe token may start with "-", which neo4j-admin reads as an option
        value = secrets.token_hex(16)
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(value + "\n")
        return value

    def render_conf(self) -> str:
        lines = {
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.tls_level": "OPTIONAL" if self.tls else "DISABLED",
            "server.http.enabled": "true",
            "server.http.listen_address": f"127.0.0.1:{self.http_port}",
            "server.http.advertised_address": f"127.0.0.1:{self.http_port}",
            "server.https.enabled": "false",
            "dbms.security.auth_enabled": "true",
            "server.memory.heap.initial_size": self.heap,
            "server.memory.heap.max_size": self.heap,
            "server.memory.pagecache.size": self.pagecache,
            "server.directories.data": "data",
            "server.directories.logs": "logs",
            "server.directories.run": "run",
            "server.directories.import": "import",
            "server.directories.plugins": "plugins",
            "server.directories.lib": str(self.lib_dir),
            # absolute: 5.26 resolves these against the home, 2026.x against conf/
            "server.logs.config": str(self.home / "conf" / "server-logs.xml"),
            "server.logs.user.config": str(self.home / "conf" / "user-logs.xml"),
            "dbms.usage_report.enabled": "false",
            # Erased text must not outlive an erasure in the transaction logs: keep no
            # log beyond what recovery needs, rotate small, checkpoint often (pruning
            # happens at a checkpoint). docs/operations.md says what to set elsewhere.
            **TX_LOG_SETTINGS,
            # One plan per statement and parameter types, not one per list-size bucket:
            # hmem's read statement takes the question's words as lists, and planning it
            # again for each new bucket cost 5-20 s (docs/operations.md).
            "internal.cypher.use_parameter_size": "false",
            "initial.dbms.default_database": "neo4j",
        }
        if self.tls:
            lines |= {
                "dbms.ssl.policy.bolt.enabled": "true",
                "dbms.ssl.policy.bolt.base_directory": str(self.certificate_dir),
                "dbms.ssl.policy.bolt.private_key": "private.key",
                "dbms.ssl.policy.bolt.public_certificate": "public.crt",
                "dbms.ssl.policy.bolt.client_auth": "NONE",
            }
        head = "# written by hmem (hmem.localdb); edits are overwritten at every start\n"
        return head + "".join(f"{k}={v}\n" for k, v in lines.items())

    def check_store(self) -> None:
        """Refuse to open a store made by the other server line (an upgrade to 2026.x
        cannot be undone; a 5.26 server cannot read a 2026.x store)."""
        made_by = self.version_file.read_text().strip() if self.version_file.is_file() else None
        has_store = (self.home / "data" / "databases").exists()
        if made_by is None:
            made_by = NEO4J_VERSION if has_store else None  # stores from before the marker
        if made_by is not None and _is_calendar(made_by) != self.calendar:
            raise LocalNeo4jError(
                f"the store in {self.home} was made by Neo4j {made_by}; this is "
                f"{self.version}: use another HMEM_NEO4J_HOME for each server line"
            )
        self.home.mkdir(parents=True, exist_ok=True)
        self.version_file.write_text(self.version + "\n")

    def prepare(self) -> None:
        for sub in ("conf", "data", "logs", "run", "plugins", "import"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        if self.tls:
            self._certificate()
        (self.home / "conf" / "neo4j.conf").write_text(self.render_conf())
        for name in ("server-logs.xml", "user-logs.xml"):
            text = resources.files("hmem.localdb").joinpath(name).read_text()
            (self.home / "conf" / name).write_text(text)

    def _certificate(self) -> None:
        """A key and a self-signed certificate for 127.0.0.1 (ten years), made once with
        ``openssl``: what a driver checks with ``+ssc`` (self-signed) URIs."""
        key, cert = self.certificate_dir / "private.key", self.certificate_dir / "public.crt"
        if key.is_file() and cert.is_file():
            return
        openssl = shutil.which("openssl")
        if openssl is None:
            raise LocalNeo4jError("HMEM_NEO4J_TLS needs `openssl` on PATH to make a certificate")
        self.certificate_dir.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [
                openssl,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "3650",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise LocalNeo4jError(f"openssl could not make a certificate: {done.stderr.strip()}")
        key.chmod(0o600)
        self._say(f"self-signed Bolt TLS certificate in {self.certificate_dir}")

    def plugin_jar(self, java: str) -> Path | None:
        """hmem's plugin built against this server's jars (cached), or None when the
        Java runtime has no ``javac`` beside it."""
        javac = javac_for(java)
        if javac is None:
            return None
        return build_plugin(
            javac,
            self.lib_dir,
            self.cache_dir / "plugins",
            self.version,
            release=self.java_majors[0],
        )

    def _install_plugin(self, java: str) -> None:
        plugins = self.home / "plugins"
        if not self.plugin:
            for old in plugins.glob("hmem-neo4j-*.jar"):
                old.unlink()
            return
        jar = self.plugin_jar(java)
        if jar is None:
            self._say(f"no javac beside {java}: {PROCEDURE} not installed (plain Cypher scans)")
            return
        install(jar, plugins)

    def _set_initial_password(self, java: str) -> None:
        if (self.home / "data" / "databases" / "system").exists():
            return
        env = dict(os.environ, NEO4J_HOME=str(self.home), NEO4J_CONF=str(self.home / "conf"))
        done = subprocess.run(
            [
                java,
                "-Xmx256m",
                *_JVM_FLAGS,
                "-cp",
                f"{self.lib_dir}/*",
                "org.neo4j.cli.AdminTool",
                "dbms",
                "set-initial-password",
                self.password(),
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise LocalNeo4jError("set-initial-password failed: " + done.stderr.strip()[-2000:])


def resolve_version(name: str | None) -> str:
    """A full Neo4j version from a name: ``5.26``/``lts`` and ``2026`` are aliases for
    the versions hmem is tested with; a full version (``2026.08.1``) is taken as is."""
    if not name:
        return NEO4J_VERSION
    value = _ALIASES.get(name.strip().lower(), name.strip())
    if not re.fullmatch(r"\d+\.\d+\.\d+", value):
        raise LocalNeo4jError(
            f"Neo4j version {name!r}: give a full version like 5.26.30 or 2026.09.0, "
            f"or one of {', '.join(sorted(_ALIASES))}"
        )
    if not value.startswith("5.") and not _is_calendar(value):
        raise LocalNeo4jError(f"Neo4j {value}: hmem runs 5.26+ (5.x or 2025+ calendar versions)")
    return value


def _is_calendar(version: str) -> bool:
    return int(version.split(".", 1)[0]) >= 2025


def _java_major(exe: str) -> int | None:
    try:
        out = subprocess.run([exe, "-version"], capture_output=True, text=True, check=False)
    except OSError:
        return None
    found = re.search(r'version "(\d+)', out.stderr + out.stdout)
    return int(found.group(1)) if found else None


def _java_homes(roots: Sequence[str]) -> list[tuple[str, Path]]:
    """(where it came from, JDK home) in the order they are tried."""
    homes: list[tuple[str, Path]] = []
    if os.environ.get("JAVA_HOME"):
        homes.append(("JAVA_HOME", Path(os.environ["JAVA_HOME"])))
    for root in roots:
        base = Path(root).expanduser()
        if not base.is_dir():
            continue
        for home in sorted(base.iterdir(), reverse=True):
            for candidate in (home, home / "Contents" / "Home"):  # macOS bundles
                if (candidate / "bin" / "java").is_file():
                    homes.append((str(base), candidate))
    return homes


def find_java(majors: tuple[int, ...], who: str, *, roots: Sequence[str] = _JAVA_ROOTS) -> str:
    """The first ``java`` of a wanted feature release: ``$HMEM_JAVA_HOME`` (which must
    fit: it is an explicit choice), ``$JAVA_HOME``, the JDK folders under ``roots`` (the
    usual ones), then ``PATH``.

    A JDK (with ``javac``) is preferred over a bare runtime of the same release, so the
    plugin can be compiled.
    """
    wanted = " or ".join(str(m) for m in majors)
    explicit = os.environ.get("HMEM_JAVA_HOME")
    if explicit:
        exe = Path(explicit) / "bin" / "java"
        major = _java_major(str(exe)) if exe.is_file() else None
        if major not in majors:
            raise LocalNeo4jError(
                f"HMEM_JAVA_HOME={explicit} is Java {major or '(none found)'}; "
                f"{who} needs Java {wanted}"
            )
        return str(exe)
    seen: list[str] = []
    runtimes: list[str] = []
    for _, home in _java_homes(roots):
        exe = home / "bin" / "java"
        major = _java_major(str(exe))
        seen.append(f"{home} (Java {major})")
        if major in majors:
            if (home / "bin" / "javac").is_file():
                return str(exe)
            runtimes.append(str(exe))
    on_path = shutil.which("java")
    if on_path and _java_major(on_path) in majors:
        runtimes.append(on_path)
    if runtimes:
        return runtimes[0]
    found = "; ".join(seen) or "none"
    raise LocalNeo4jError(
        f"{who} needs Java {wanted}: install a JDK {majors[-1]} (e.g. Temurin) or point "
        f"HMEM_JAVA_HOME at one. Java seen: {found}"
    )
