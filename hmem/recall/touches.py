"""``last_used_at`` touches, batched off the search path.

A search hands the ids it returned to ``Touches.add`` and returns; a worker thread
writes what gathered ``delay_s`` later, one statement per user, each fact stamped with
the latest time it was used. Before, every search wrote its own touch right away, on a
thread of its own, and the write overlapped the next search (9 to 13 % of it, issue
36). ``flush`` writes now (tests, expiry, shutdown). A process that ends without
``Memory.shutdown()`` loses at most the last ``delay_s`` of touches: a touch only
postpones episodic expiry.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime

__all__ = ["Touches"]

log = logging.getLogger("hmem.recall")

Writer = Callable[[str, Sequence[tuple[str, datetime]]], int]


class Touches:
    def __init__(self, write: Writer, *, delay_s: float = 1.0) -> None:
        self._write = write
        self.delay_s = delay_s
        self._pending: dict[str, dict[str, datetime]] = {}
        self._lock = threading.Lock()
        self._writing = threading.Lock()  # one batch at a time, flush waits for it
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None

    def add(self, user_id: str, ids: Sequence[str], at: datetime) -> None:
        if not ids:
            return
        with self._lock:
            mine = self._pending.setdefault(user_id, {})
            for fid in ids:
                held = mine.get(fid)
                if held is None or held < at:
                    mine[fid] = at
            if self._thread is None or not self._thread.is_alive():
                self._stop = False
                self._thread = threading.Thread(target=self._run, name="hmem-touch", daemon=True)
                self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            if self._stop:
                return
            # Gather a while: the searches of that window share one write per user.
            time.sleep(self.delay_s)
            self._wake.clear()
            self.flush()
            if self._stop:
                return

    def flush(self) -> None:
        """Write every pending touch now; failures are logged, never raised (a touch
        only moves episodic expiry)."""
        with self._writing:
            with self._lock:
                pending, self._pending = self._pending, {}
            for user_id, stamps in pending.items():
                try:
                    self._write(user_id, sorted(stamps.items()))
                except Exception as exc:
                    log.warning(
                        "could not update last_used_at: %s",
                        exc,
                        extra={"error": type(exc).__name__},
                    )

    def close(self) -> None:
        with self._lock:
            self._stop = True
            thread, self._thread = self._thread, None
        self._wake.set()
        if thread is not None:
            thread.join(timeout=30)
        self.flush()
