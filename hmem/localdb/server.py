"""Start, wait for and stop a local Neo4j server (its home assembled by install.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType

from hmem.localdb.install import (
    _JVM_FLAGS,
    NEO4J_2026,
    NEO4J_VERSION,
    TX_LOG_SETTINGS,
    LocalNeo4jError,
    Neo4jHome,
    find_java,
    resolve_version,
)

__all__ = [
    "NEO4J_2026",
    "NEO4J_VERSION",
    "TX_LOG_SETTINGS",
    "LocalNeo4j",
    "LocalNeo4jError",
    "Terminated",
    "find_java",
    "resolve_version",
    "stop_on_signals",
]


# Servers this process started: kept referenced so the detached child is never
# garbage-collected while running, and reaped when we stop it.
_STARTED: dict[int, subprocess.Popen[bytes]] = {}
# The servers this process started and has not stopped (stop_on_signals stops them).
_RUNNING: dict[int, LocalNeo4j] = {}


class Terminated(SystemExit):
    """SIGTERM arrived (a timeout, ``kill``) inside ``stop_on_signals``."""


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within it, SIGTERM ends this process the way Ctrl-C (SIGINT) does: as an
    exception, so ``finally`` blocks and child processes' waits run; and on either
    signal every local Neo4j this process started and has not stopped is stopped before
    the process exits (a benchmark's 4 GB server must not outlive a timeout). A server
    started outside a signal keeps running as asked (``hmem neo4j start``)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread
        return

    def terminated(signum: int, frame: FrameType | None) -> None:
        raise Terminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminated)
    previous_int = signal.getsignal(signal.SIGINT)
    try:
        yield
    except (KeyboardInterrupt, Terminated):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second signal: finish stopping
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for server in list(_RUNNING.values()):
            server.stop()
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


@dataclass
class LocalNeo4j(Neo4jHome):
    """One local server: its home (Neo4jHome) and the process running on it."""

    # -- process ------------------------------------------------------------------------
    def pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        return pid

    def running(self) -> bool:
        return self.pid() is not None

    def start(self, timeout: float = 180.0) -> float:
        """Fetch if needed, start in the background, wait until Bolt answers a query.

        Returns the seconds the start took (0 when it was already running).
        """
        if self.running():
            self._say(f"already running (pid {self.pid()}) at {self.bolt_uri}")
            return 0.0
        started = time.monotonic()
        self.fetch()
        java = self.java()
        self.check_store()
        self.prepare()
        self._install_plugin(java)
        self._set_initial_password(java)
        for port in (self.bolt_port, self.http_port):
            if _port_open(port):
                raise LocalNeo4jError(f"port {port} on 127.0.0.1 is taken by another process")
        command = [
            java,
            f"-Xms{self.heap}",
            f"-Xmx{self.heap}",
            *_JVM_FLAGS,
            "-cp",
            f"{self.home}/plugins/*:{self.lib_dir}/*",
            self.entry_point,
            f"--home-dir={self.home}",
            f"--config-dir={self.home / 'conf'}",
        ]
        console = (self.home / "logs" / "console.log").open("ab")
        proc = subprocess.Popen(
            command,
            stdout=console,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=self.home,
        )
        console.close()
        _STARTED[proc.pid] = proc
        _RUNNING[proc.pid] = self
        self.pid_file.write_text(f"{proc.pid}\n")
        self._say(f"starting pid {proc.pid}, waiting for Bolt on {self.bolt_uri}")
        self._wait_ready(proc, started + timeout)
        took = time.monotonic() - started
        self._say(f"ready in {took:.1f}s: {self.bolt_uri}  Browser {self.browser_url}")
        return took

    def _wait_ready(self, proc: subprocess.Popen[bytes], deadline: float) -> None:
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError, ServiceUnavailable, SessionExpired

        while time.monotonic() < deadline:
            if proc.poll() is not None:
                _STARTED.pop(proc.pid, None)
                _RUNNING.pop(proc.pid, None)
                self.pid_file.unlink(missing_ok=True)
                raise LocalNeo4jError(
                    f"Neo4j exited with code {proc.returncode}; last lines:\n" + self.log_tail()
                )
            if _port_open(self.bolt_port):
                try:
                    with GraphDatabase.driver(
                        self.bolt_uri,
                        auth=("neo4j", self.password()),
                        connection_timeout=2,
                        max_transaction_retry_time=0,
                    ) as driver:
                        driver.execute_query("RETURN 1", database_="neo4j")
                        return
                except (ServiceUnavailable, SessionExpired, OSError):
                    pass
                except AuthError as exc:
                    raise LocalNeo4jError(
                        f"the server in {self.home} refuses the password in "
                        f"{self.password_file}: {exc}"
                    ) from exc
                except Exception as exc:
                    if "unavailable" not in str(exc).lower():
                        raise
            time.sleep(0.5)
        self.stop()
        raise LocalNeo4jError("Neo4j did not answer in time; last lines:\n" + self.log_tail())

    def log_tail(self, lines: int = 30) -> str:
        out: list[str] = []
        for name in ("console.log", "neo4j.log"):
            path = self.home / "logs" / name
            if path.is_file():
                out.extend(path.read_text(errors="replace").splitlines()[-lines:])
        return "\n".join(out)

    def stop(self, timeout: float = 120.0) -> bool:
        """Stop cleanly (SIGTERM, then SIGKILL after ``timeout``). False if not running."""
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                break
            time.sleep(0.3)
        else:
            self._say(f"no clean stop after {timeout:.0f}s, killing pid {pid}")
            os.kill(pid, signal.SIGKILL)
        _RUNNING.pop(pid, None)
        child = _STARTED.pop(pid, None)
        if child is not None:
            child.wait()
        self.pid_file.unlink(missing_ok=True)
        self._say("stopped")
        return True


def _alive(pid: int) -> bool:
    child = _STARTED.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie child of ours counts as gone
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == 0


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0
