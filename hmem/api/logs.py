"""Structured logs: one JSON object per line, built from an allow-list of fields.

Only the fields named in ``FIELDS`` are ever written, so memory text, API keys and
request bodies cannot reach a log line by accident: nothing logs them, and a stray
``extra={"text": ...}`` would be dropped here. ``msg`` is the message's template, never
its arguments: a value a JSON line should show goes in an allowed field as well.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

__all__ = ["FIELDS", "JsonFormatter", "configure_logging"]

FIELDS = (
    "event",
    "method",
    "route",
    "status",
    "ms",
    "request_id",
    "tenant",
    "key_id",
    "error",
    "frames",
    "host",
    "port",
    "job_id",
    "job_status",
    "facts",
)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.msg if isinstance(record.msg, str) else type(record.msg).__name__,
        }
        for name in FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                out[name] = value
        return json.dumps(out, default=str)


def configure_logging(*, json_lines: bool = True, level: int = logging.INFO) -> None:
    """Send hmem's logs to stderr, as JSON lines unless asked for plain text."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if json_lines else logging.Formatter("%(levelname)s %(name)s %(message)s")
    )
    # uvicorn's own lines go through the same allow-list: its "Exception in ASGI
    # application" carries a traceback whose frames can hold request values.
    for name in ("hmem", "uvicorn"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False
