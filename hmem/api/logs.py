"""Structured logs: one JSON object per line, built from an allow-list of fields.

Only the fields named in ``FIELDS`` are ever written, so memory text, API keys and
request bodies cannot reach a log line by accident: nothing logs them, and a stray
``extra={"text": ...}`` would be dropped here.

``msg`` reads as a sentence: its placeholders are filled with the record's numbers and
with the arguments that are also one of its allowed fields (hmem passes what a line
should show both ways, e.g. ``log.warning("dense search is off: %s", exc,
extra={"error": str(exc)})``); any other argument shows as ``…``. uvicorn's own lines
(a process id, the address it binds) are filled as they are: their arguments are its
settings, never a request's values. ``template`` keeps the unfilled message.
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


_WITHHELD = "…"


def _sentence(record: logging.LogRecord, allowed: dict[str, object]) -> str:
    template = record.msg if isinstance(record.msg, str) else type(record.msg).__name__
    args = record.args
    if not args or not isinstance(record.msg, str):
        return template
    values = args if isinstance(args, tuple) else (args,)
    if not record.name.startswith("uvicorn"):
        shown = {str(v) for v in allowed.values()}
        values = tuple(
            v
            if isinstance(v, int | float) or str(v) in shown or type(v).__name__ in shown
            else _WITHHELD
            for v in values
        )
    try:
        return template % values
    except (TypeError, ValueError, KeyError):  # a %d given the placeholder, a mapping
        return template


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        allowed = {n: record.__dict__[n] for n in FIELDS if record.__dict__.get(n) is not None}
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": _sentence(record, allowed),
        }
        if record.args and isinstance(record.msg, str):
            out["template"] = record.msg
        out.update(allowed)
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
