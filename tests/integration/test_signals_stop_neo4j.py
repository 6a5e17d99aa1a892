"""Whatever hmem starts, it stops on SIGTERM and SIGINT (issue 49 item 13): `hmem bench
run` runs each latency step as a child process with a Neo4j of its own; a timeout's
SIGTERM to the run reaches the step, which stops that server before it exits.

The run and its step are stood in for by the same pieces: a parent under
``stop_on_signals`` streaming a child (``hmem_bench.runner_steps._stream``) that starts a
``LocalNeo4j`` under ``stop_on_signals``, as ``python -m hmem_bench.latency`` does.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


STEP = """
import sys, time
from pathlib import Path
from hmem.localdb import LocalNeo4j, stop_on_signals
with stop_on_signals():
    server = LocalNeo4j(Path(sys.argv[1]), bolt_port=int(sys.argv[2]), http_port=int(sys.argv[3]))
    server.start(timeout=300)
    print("step: server up", flush=True)
    time.sleep(900)
"""

RUN = """
import signal, sys
# started from a non-interactive shell's background job, a process inherits Ctrl-C
# ignored, and Python keeps it so: the run must be one Ctrl-C reaches
signal.signal(signal.SIGINT, signal.default_int_handler)
from hmem.localdb import stop_on_signals
from hmem_bench.runner_steps import _stream
with stop_on_signals():
    print("run: started", flush=True)
    _stream([sys.executable, "-c", sys.argv[1], *sys.argv[2:]], timeout=900)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_run_stops_the_neo4j_its_step_started(
    tmp_path: Path, sig: signal.Signals
) -> None:
    home = tmp_path / "neo4j-bench"
    argv = [sys.executable, "-c", RUN, STEP, str(home), str(_free_port()), str(_free_port())]
    # a session of its own: the signal goes to the run alone, as `timeout` sends it
    run = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    pid_file = home / "run" / "hmem-neo4j.pid"
    try:
        assert run.stdout is not None
        seen = []
        for line in run.stdout:
            seen.append(line)
            if "step: server up" in line:
                break
        else:
            pytest.fail("the step's server never came up:\n" + "".join(seen))
        server_pid = int(pid_file.read_text())
        assert _alive(server_pid)

        run.send_signal(sig)
        rest, _ = run.communicate(timeout=300)
        # stopped, not finished: SIGTERM's 128 + 15; Ctrl-C ends as Python's SIGINT does
        assert run.returncode == 143 if sig == signal.SIGTERM else run.returncode != 0, rest
        deadline = time.monotonic() + 30
        while _alive(server_pid) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _alive(server_pid), "".join(seen) + rest
        assert not pid_file.exists()
    finally:
        if run.poll() is None:
            run.kill()
        if pid_file.exists():  # the test failed: leave no server behind
            pid = int(pid_file.read_text())
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
